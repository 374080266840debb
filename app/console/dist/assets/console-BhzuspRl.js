import{A as tt,s as bt,c as gn,e as Lt,f as _n,a as yn,K as vn,g as Sn}from"./keystore-DvX34wAy.js";var Ue,R,qt,le,gt,Bt,Ut,He,Ee,Se,Kt,nt,Je,Qe,Ot,Ne={},xe=[],In=/acit|ex(?:s|g|n|p|$)|rph|grid|ows|mnc|ntw|ine[ch]|zoo|^ord|itera/i,Ke=Array.isArray;function ne(t,n){for(var r in n)t[r]=n[r];return t}function rt(t){t&&t.parentNode&&t.parentNode.removeChild(t)}function kn(t,n,r){var s,o,l,a={};for(l in n)l=="key"?s=n[l]:l=="ref"?o=n[l]:a[l]=n[l];if(arguments.length>2&&(a.children=arguments.length>3?Ue.call(arguments,2):r),typeof t=="function"&&t.defaultProps!=null)for(l in t.defaultProps)a[l]===void 0&&(a[l]=t.defaultProps[l]);return Pe(t,a,s,o,null)}function Pe(t,n,r,s,o){var l={type:t,props:n,key:r,ref:s,__k:null,__:null,__b:0,__e:null,__c:null,constructor:void 0,__v:o??++qt,__i:-1,__u:0};return o==null&&R.vnode!=null&&R.vnode(l),l}function v(t){return t.children}function De(t,n){this.props=t,this.context=n}function ae(t,n){if(n==null)return t.__?ae(t.__,t.__i+1):null;for(var r;n<t.__k.length;n++)if((r=t.__k[n])!=null&&r.__e!=null)return r.__e;return typeof t.type=="function"?ae(t):null}function wn(t){if(t.__P&&t.__d){var n=t.__v,r=n.__e,s=[],o=[],l=ne({},n);l.__v=n.__v+1,R.vnode&&R.vnode(l),st(t.__P,l,n,t.__n,t.__P.namespaceURI,32&n.__u?[r]:null,s,r??ae(n),!!(32&n.__u),o),l.__v=n.__v,l.__.__k[l.__i]=l,Gt(s,l,o),n.__e=n.__=null,l.__e!=r&&Vt(l)}}function Vt(t){if((t=t.__)!=null&&t.__c!=null)return t.__e=t.__c.base=null,t.__k.some(function(n){if(n!=null&&n.__e!=null)return t.__e=t.__c.base=n.__e}),Vt(t)}function Ye(t){(!t.__d&&(t.__d=!0)&&le.push(t)&&!Me.__r++||gt!=R.debounceRendering)&&((gt=R.debounceRendering)||Bt)(Me)}function Me(){try{for(var t,n=1;le.length;)le.length>n&&le.sort(Ut),t=le.shift(),n=le.length,wn(t)}finally{le.length=Me.__r=0}}function Ft(t,n,r,s,o,l,a,c,u,i,m){var p,d,f,g,S,I,_=s&&s.__k||xe,b=n.length;for(u=Cn(r,n,_,u,b),p=0;p<b;p++)(f=r.__k[p])!=null&&(d=f.__i!=-1&&_[f.__i]||Ne,f.__i=p,I=st(t,f,d,o,l,a,c,u,i,m),g=f.__e,f.ref&&d.ref!=f.ref&&(d.ref&&lt(d.ref,null,f),m.push(f.ref,f.__c||g,f)),S==null&&g!=null&&(S=g),4&f.__u?(u=Ht(f,u,t),d.__e&&(d.__e=null)):typeof f.type=="function"&&I!==void 0?u=I:g&&(u=g.nextSibling),f.__u&=-7);return r.__e=S,u}function Cn(t,n,r,s,o){var l,a,c,u,i,m=r.length,p=m,d=0;for(t.__k=new Array(o),l=0;l<o;l++)(a=n[l])!=null&&typeof a!="boolean"&&typeof a!="function"?(typeof a=="string"||typeof a=="number"||typeof a=="bigint"||a.constructor==String?a=t.__k[l]=Pe(null,a,null,null,null):Ke(a)?a=t.__k[l]=Pe(v,{children:a},null,null,null):a.constructor===void 0&&a.__b>0?a=t.__k[l]=Pe(a.type,a.props,a.key,a.ref?a.ref:null,a.__v):t.__k[l]=a,u=l+d,a.__=t,a.__b=t.__b+1,c=null,(i=a.__i=An(a,r,u,p))!=-1&&(p--,(c=r[i])&&(c.__u|=2)),c==null||c.__v==null?(i==-1&&(o>m?d--:o<m&&d++),typeof a.type!="function"&&(a.__u|=4)):i!=u&&(i==u-1?d--:i==u+1?d++:(i>u?d--:d++,a.__u|=4))):t.__k[l]=null;if(p)for(l=0;l<m;l++)(c=r[l])!=null&&(2&c.__u)==0&&(c.__e==s&&(s=ae(c)),zt(c,c));return s}function Ht(t,n,r){var s,o;if(typeof t.type=="function"){for(s=t.__k,o=0;s&&o<s.length;o++)s[o]&&(s[o].__=t,n=Ht(s[o],n,r));return n}t.__e!=n&&(n&&t.type&&!n.parentNode&&(n=ae(t)),n=r.insertBefore(t.__e,n||null));do n=n&&n.nextSibling;while(n!=null&&n.nodeType==8);return n}function An(t,n,r,s){var o,l,a,c=t.key,u=t.type,i=n[r],m=i!=null&&(2&i.__u)==0;if(i===null&&c==null||m&&c==i.key&&u==i.type)return r;if(s>(m?1:0)){for(o=r-1,l=r+1;o>=0||l<n.length;)if((i=n[a=o>=0?o--:l++])!=null&&(2&i.__u)==0&&c==i.key&&u==i.type)return a}return-1}function _t(t,n,r){n[0]=="-"?t.setProperty(n,r??""):t[n]=r==null?"":typeof r!="number"||In.test(n)?r:r+"px"}function Te(t,n,r,s,o){var l,a;e:if(n=="style")if(typeof r=="string")t.style.cssText=r;else{if(typeof s=="string"&&(t.style.cssText=s=""),s)for(n in s)r&&n in r||_t(t.style,n,"");if(r)for(n in r)s&&r[n]==s[n]||_t(t.style,n,r[n])}else if(n[0]=="o"&&n[1]=="n")l=n!=(n=n.replace(Kt,"$1")),a=n.toLowerCase(),n=a in t||n=="onFocusOut"||n=="onFocusIn"?a.slice(2):n.slice(2),t.l||(t.l={}),t.l[n+l]=r,r?s?r[Se]=s[Se]:(r[Se]=nt,t.addEventListener(n,l?Qe:Je,l)):t.removeEventListener(n,l?Qe:Je,l);else{if(o=="http://www.w3.org/2000/svg")n=n.replace(/xlink(H|:h)/,"h").replace(/sName$/,"s");else if(n!="width"&&n!="height"&&n!="href"&&n!="list"&&n!="form"&&n!="tabIndex"&&n!="download"&&n!="rowSpan"&&n!="colSpan"&&n!="role"&&n!="popover"&&n in t)try{t[n]=r??"";break e}catch{}typeof r=="function"||(r==null||r===!1&&n[4]!="-"?t.removeAttribute(n):t.setAttribute(n,n=="popover"&&r==1?"":r))}}function yt(t){return function(n){if(this.l){var r=this.l[n.type+t];if(n[Ee]==null)n[Ee]=nt++;else if(n[Ee]<r[Se])return;return r(R.event?R.event(n):n)}}}function st(t,n,r,s,o,l,a,c,u,i){var m,p,d,f,g,S,I,_,b,y,L,D,W,$,J,E,P=n.type;if(n.constructor!==void 0)return null;128&r.__u&&(u=!!(32&r.__u),l=[c=n.__e=r.__e]),(m=R.__b)&&m(n);e:if(typeof P=="function"){p=a.length;try{if(b=n.props,y=P.prototype&&P.prototype.render,L=(m=P.contextType)&&s[m.__c],D=m?L?L.props.value:m.__:s,r.__c?_=(d=n.__c=r.__c).__=d.__E:(y?n.__c=d=new P(b,D):(n.__c=d=new De(b,D),d.constructor=P,d.render=Tn),L&&L.sub(d),d.state||(d.state={}),d.__n=s,f=d.__d=!0,d.__h=[],d._sb=[]),y&&d.__s==null&&(d.__s=d.state),y&&P.getDerivedStateFromProps!=null&&(d.__s==d.state&&(d.__s=ne({},d.__s)),ne(d.__s,P.getDerivedStateFromProps(b,d.__s))),g=d.props,S=d.state,d.__v=n,f)y&&P.getDerivedStateFromProps==null&&d.componentWillMount!=null&&d.componentWillMount(),y&&d.componentDidMount!=null&&d.__h.push(d.componentDidMount);else{if(y&&P.getDerivedStateFromProps==null&&b!==g&&d.componentWillReceiveProps!=null&&d.componentWillReceiveProps(b,D),n.__v==r.__v||!d.__e&&d.shouldComponentUpdate!=null&&d.shouldComponentUpdate(b,d.__s,D)===!1){n.__v!=r.__v&&(d.props=b,d.state=d.__s,d.__d=!1),n.__e=r.__e,n.__k=r.__k,n.__k.some(function(O){O&&(O.__=n)}),xe.push.apply(d.__h,d._sb),d._sb=[],d.__h.length&&a.push(d),c=ae(r);break e}d.componentWillUpdate!=null&&d.componentWillUpdate(b,d.__s,D),y&&d.componentDidUpdate!=null&&d.__h.push(function(){d.componentDidUpdate(g,S,I)})}if(d.context=D,d.props=b,d.__P=t,d.__e=!1,W=R.__r,$=0,y)d.state=d.__s,d.__d=!1,W&&W(n),m=d.render(d.props,d.state,d.context),xe.push.apply(d.__h,d._sb),d._sb=[];else do d.__d=!1,W&&W(n),m=d.render(d.props,d.state,d.context),d.state=d.__s;while(d.__d&&++$<25);d.state=d.__s,d.getChildContext!=null&&(s=ne(ne({},s),d.getChildContext())),y&&!f&&d.getSnapshotBeforeUpdate!=null&&(I=d.getSnapshotBeforeUpdate(g,S)),J=m!=null&&m.type===v&&m.key==null?Wt(m.props.children):m,c=Ft(t,Ke(J)?J:[J],n,r,s,o,l,a,c,u,i),d.base=n.__e,n.__u&=-161,d.__h.length&&a.push(d),_&&(d.__E=d.__=null)}catch(O){if(a.length=p,n.__v=null,u||l!=null){if(O.then){for(n.__u|=u?160:128;c&&c.nodeType==8&&c.nextSibling;)c=c.nextSibling;l!=null&&(l[l.indexOf(c)]=null),n.__e=c}else if(l!=null)for(E=l.length;E--;)rt(l[E])}else n.__e=r.__e;n.__k==null&&(n.__k=r.__k||[]),O.then||jt(n),R.__e(O,n,r)}}else l==null&&n.__v==r.__v?(n.__k=r.__k,n.__e=r.__e):c=n.__e=$n(r.__e,n,r,s,o,l,a,u,i);return(m=R.diffed)&&m(n),128&n.__u?void 0:c}function jt(t){t&&(t.__c&&(t.__c.__e=!0),t.__k&&t.__k.some(jt))}function Gt(t,n,r){for(var s=0;s<r.length;s++)lt(r[s],r[++s],r[++s]);R.__c&&R.__c(n,t),t.some(function(o){try{t=o.__h,o.__h=[],t.some(function(l){l.call(o)})}catch(l){R.__e(l,o.__v)}})}function Wt(t){return typeof t!="object"||t==null||t.__b>0?t:Ke(t)?t.map(Wt):t.constructor!==void 0?null:ne({},t)}function $n(t,n,r,s,o,l,a,c,u){var i,m,p,d,f,g,S,I=r.props||Ne,_=n.props,b=n.type;if(b=="svg"?o="http://www.w3.org/2000/svg":b=="math"?o="http://www.w3.org/1998/Math/MathML":o||(o="http://www.w3.org/1999/xhtml"),l!=null){for(i=0;i<l.length;i++)if((f=l[i])&&"setAttribute"in f==!!b&&(b?f.localName==b:f.nodeType==3)){t=f,l[i]=null;break}}if(t==null){if(b==null)return document.createTextNode(_);t=document.createElementNS(o,b,_.is&&_),c&&(R.__m&&R.__m(n,l),c=!1),l=null}if(b==null)I===_||c&&t.data==_||(t.data=_);else{if(l=b=="textarea"&&_.defaultValue!=null?null:l&&Ue.call(t.childNodes),!c&&l!=null)for(I={},i=0;i<t.attributes.length;i++)I[(f=t.attributes[i]).name]=f.value;for(i in I)f=I[i],i=="dangerouslySetInnerHTML"?p=f:i=="children"||i in _||i=="value"&&"defaultValue"in _||i=="checked"&&"defaultChecked"in _||Te(t,i,null,f,o);for(i in _)f=_[i],i=="children"?d=f:i=="dangerouslySetInnerHTML"?m=f:i=="value"?g=f:i=="checked"?S=f:c&&typeof f!="function"||I[i]===f||Te(t,i,f,I[i],o);if(m)c||p&&(m.__html==p.__html||m.__html==t.innerHTML)||(t.innerHTML=m.__html),n.__k=[];else if(p&&(t.innerHTML=""),Ft(n.type=="template"?t.content:t,Ke(d)?d:[d],n,r,s,b=="foreignObject"?"http://www.w3.org/1999/xhtml":o,l,a,l?l[0]:r.__k&&ae(r,0),c,u),l!=null)for(i=l.length;i--;)rt(l[i]);c&&b!="textarea"||(i="value",b=="progress"&&g==null?t.removeAttribute("value"):g!=null&&(g!==t[i]||b=="progress"&&!g||b=="option"&&g!=I[i])&&Te(t,i,g,I[i],o),i="checked",S!=null&&S!=t[i]&&Te(t,i,S,I[i],o))}return t}function lt(t,n,r){try{if(typeof t=="function"){var s=typeof t.__u=="function";s&&t.__u(),s&&n==null||(t.__u=t(n))}else t.current=n}catch(o){R.__e(o,r)}}function zt(t,n,r){var s,o;if(R.unmount&&R.unmount(t),(s=t.ref)&&(s.current&&s.current!=t.__e||lt(s,null,n)),(s=t.__c)!=null){if(s.componentWillUnmount)try{s.componentWillUnmount()}catch(l){R.__e(l,n)}s.base=s.__P=s.__n=null}if(s=t.__k)for(o=0;o<s.length;o++)s[o]&&zt(s[o],n,r||typeof t.type!="function");r||rt(t.__e),t.__c=t.__=t.__e=void 0}function Tn(t,n,r){return this.constructor(t,r)}function En(t,n,r){var s,o,l,a;n==document&&(n=document.documentElement),R.__&&R.__(t,n),o=(s=!1)?null:n.__k,l=[],a=[],st(n,t=n.__k=kn(v,null,[t]),o||Ne,Ne,n.namespaceURI,o?null:n.firstChild?Ue.call(n.childNodes):null,l,o?o.__e:n.firstChild,s,a),Gt(l,t,a),t.props.children=null}function Pn(t){function n(r){var s,o;return this.getChildContext||(s=new Set,(o={})[n.__c]=this,this.getChildContext=function(){return o},this.componentWillUnmount=function(){s=null},this.shouldComponentUpdate=function(l){this.props.value!=l.value&&s.forEach(function(a){a.__e=!0,Ye(a)})},this.sub=function(l){s.add(l);var a=l.componentWillUnmount;l.componentWillUnmount=function(){s&&s.delete(l),a&&a.call(l)}}),r.children}return n.__c="__cC"+Ot++,n.__=t,n.Provider=n.__l=(n.Consumer=function(r,s){return r.children(s)}).contextType=n,n}Ue=xe.slice,R={__e:function(t,n,r,s){for(var o,l,a;n=n.__;)if((o=n.__c)&&!o.__)try{if((l=o.constructor)&&l.getDerivedStateFromError!=null&&(o.setState(l.getDerivedStateFromError(t)),a=o.__d),o.componentDidCatch!=null&&(o.componentDidCatch(t,s||{}),a=o.__d),a)return o.__E=o}catch(c){t=c}throw t}},qt=0,De.prototype.setState=function(t,n){var r;r=this.__s!=null&&this.__s!=this.state?this.__s:this.__s=ne({},this.state),typeof t=="function"&&(t=t(ne({},r),this.props)),t&&ne(r,t),t!=null&&this.__v&&(n&&this._sb.push(n),Ye(this))},De.prototype.forceUpdate=function(t){this.__v&&(this.__e=!0,t&&this.__h.push(t),Ye(this))},De.prototype.render=v,le=[],Bt=typeof Promise=="function"?Promise.prototype.then.bind(Promise.resolve()):setTimeout,Ut=function(t,n){return t.__v.__b-n.__v.__b},Me.__r=0,He=Math.random().toString(8),Ee="__d"+He,Se="__a"+He,Kt=/(PointerCapture)$|Capture$/i,nt=0,Je=yt(!1),Qe=yt(!0),Ot=0;var Dn=0;function e(t,n,r,s,o,l){n||(n={});var a,c,u=n;if("ref"in u)for(c in u={},n)c=="ref"?a=n[c]:u[c]=n[c];var i={type:t,props:u,key:r,ref:a,__k:null,__:null,__b:0,__e:null,__c:null,constructor:void 0,__v:--Dn,__i:-1,__u:0,__source:o,__self:l};if(typeof t=="function"&&(a=t.defaultProps))for(c in a)u[c]===void 0&&(u[c]=a[c]);return R.vnode&&R.vnode(i),i}var ie,x,je,vt,Ie=0,Jt=[],U=R,St=U.__b,It=U.__r,kt=U.diffed,wt=U.__c,Ct=U.unmount,At=U.__;function ke(t,n){U.__h&&U.__h(x,t,Ie||n),Ie=0;var r=x.__H||(x.__H={__:[],__h:[]});return t>=r.__.length&&r.__.push({}),r.__[t]}function h(t){return Ie=1,Rn(Yt,t)}function Rn(t,n,r){var s=ke(ie++,2);if(s.t=t,!s.__c&&(s.__=[Yt(void 0,n),function(c){var u=s.__N?s.__N[0]:s.__[0],i=s.t(u,c);u!==i&&(s.__N=[i,s.__[1]],s.__c.setState({}))}],s.__c=x,!x.__f)){var o=function(c,u,i){if(!s.__c.__H)return!0;var m=!1,p=s.__c.props!==c;if(s.__c.__H.__.some(function(f){if(f.__N){m=!0;var g=f.__[0];f.__=f.__N,f.__N=void 0,g!==f.__[0]&&(p=!0)}}),l){var d=l.call(this,c,u,i);return m?d||p:d}return!m||p};x.__f=!0;var l=x.shouldComponentUpdate,a=x.componentWillUpdate;x.componentWillUpdate=function(c,u,i){if(this.__e){var m=l;l=void 0,o(c,u,i),l=m}a&&a.call(this,c,u,i)},x.shouldComponentUpdate=o}return s.__N||s.__}function F(t,n){var r=ke(ie++,3);!U.__s&&Qt(r.__H,n)&&(r.__=t,r.u=n,x.__H.__h.push(r))}function Oe(t){return Ie=5,me(function(){return{current:t}},[])}function me(t,n){var r=ke(ie++,7);return Qt(r.__H,n)&&(r.__=t(),r.__H=n,r.__h=t),r.__}function Le(t,n){return Ie=8,me(function(){return t},n)}function Nn(t){var n=x.context[t.__c],r=ke(ie++,9);return r.c=t,n?(r.__==null&&(r.__=!0,n.sub(x)),n.props.value):t.__}function xn(){var t=ke(ie++,11);if(!t.__){for(var n=x.__v;n!==null&&!n.__m&&n.__!==null;)n=n.__;var r=n.__m||(n.__m=[0,0]);t.__="P"+r[0]+"-"+r[1]++}return t.__}function Mn(){for(var t;t=Jt.shift();){var n=t.__H;if(t.__P&&n)try{n.__h.some(Re),n.__h.some(Ze),n.__h=[]}catch(r){n.__h=[],U.__e(r,t.__v)}}}U.__b=function(t){x=null,St&&St(t)},U.__=function(t,n){t&&n.__k&&n.__k.__m&&(t.__m=n.__k.__m),At&&At(t,n)},U.__r=function(t){It&&It(t),ie=0;var n=(x=t.__c).__H;n&&(je===x?(n.__h=[],x.__h=[],n.__.some(function(r){r.__N&&(r.__=r.__N),r.u=r.__N=void 0})):(n.__h.some(Re),n.__h.some(Ze),n.__h=[],ie=0)),je=x},U.diffed=function(t){kt&&kt(t);var n=t.__c;n&&n.__H&&(n.__H.__h.length&&(Jt.push(n)!==1&&vt===U.requestAnimationFrame||((vt=U.requestAnimationFrame)||Ln)(Mn)),n.__H.__.some(function(r){r.u&&(r.__H=r.u,r.u=void 0)})),je=x=null},U.__c=function(t,n){n.some(function(r){try{r.__h.some(Re),r.__h=r.__h.filter(function(s){return!s.__||Ze(s)})}catch(s){n.some(function(o){o.__h&&(o.__h=[])}),n=[],U.__e(s,r.__v)}}),wt&&wt(t,n)},U.unmount=function(t){Ct&&Ct(t);var n,r=t.__c;r&&r.__H&&(r.__H.__.some(function(s){try{Re(s)}catch(o){n=o}}),r.__H=void 0,n&&U.__e(n,r.__v))};var $t=typeof requestAnimationFrame=="function";function Ln(t){var n,r=function(){clearTimeout(s),$t&&cancelAnimationFrame(n),setTimeout(t)},s=setTimeout(r,35);$t&&(n=requestAnimationFrame(r))}function Re(t){var n=x,r=t.__c;typeof r=="function"&&(t.__c=void 0,r()),x=n}function Ze(t){var n=x;t.__c=t.__(),x=n}function Qt(t,n){return!t||t.length!==n.length||n.some(function(r,s){return r!==t[s]})}function Yt(t,n){return typeof n=="function"?n(t):n}class k extends String{__apiType;value;__meta__;constructor(n,r){super(n),this.value=n,this.__meta__=r}toString(){return this.value}}new k(`
    fragment RunRow on AgentRun {
  id
  status
  input
  output
  steps
  startedAt
  finishedAt
  model
  promptTokens
  completionTokens
  error {
    code
    message
  }
  toolCalls {
    id
    toolId
    status
    latencyMs
    arguments
    error {
      code
      message
    }
  }
}
    `,{fragmentName:"RunRow"});new k(`
    fragment CallRow on ToolCall {
  id
  toolId
  status
  latencyMs
  attempts
  traceId
  startedAt
  idempotencyKey
  arguments
  result
  error {
    code
    message
    detail
  }
  space {
    id
    name
  }
  agent {
    id
    name
  }
  run {
    id
  }
}
    `,{fragmentName:"CallRow"});new k(`
    fragment ToolRow on Tool {
  id
  name
  label
  type
  status
  isGlobal
  sideEffect
  driftedAt
  boundSpaces {
    id
    name
  }
  mcpServer {
    id
    name
  }
}
    `,{fragmentName:"ToolRow"});const qn=new k(`
    query Agents($first: Int!, $after: String) {
  agents(first: $first, after: $after) {
    totalCount
    pageInfo {
      hasNextPage
      endCursor
    }
    edges {
      node {
        id
        name
        model
        status
        updatedAt
        space {
          id
          name
        }
      }
    }
  }
}
    `),Bn=new k(`
    query AgentDetail($id: ID!) {
  agent(id: $id) {
    id
    name
    model
    systemPrompt
    maxSteps
    outputFormat
    status
    boundSkillReferences
    space {
      id
      name
    }
    mountedKnowledgeBases {
      id
      name
    }
    activatedTools {
      id
      name
    }
    runs(first: 50) {
      totalCount
      edges {
        node {
          ...RunRow
        }
      }
    }
  }
}
    fragment RunRow on AgentRun {
  id
  status
  input
  output
  steps
  startedAt
  finishedAt
  model
  promptTokens
  completionTokens
  error {
    code
    message
  }
  toolCalls {
    id
    toolId
    status
    latencyMs
    arguments
    error {
      code
      message
    }
  }
}`),Un=new k(`
    query AgentChoices($spaceId: ID!) {
  space(id: $spaceId) {
    id
    visibleTools(first: 100) {
      edges {
        node {
          id
          name
          label
        }
      }
    }
    skills(first: 100) {
      edges {
        node {
          id
          name
          label
          version
        }
      }
    }
    knowledgeBases(first: 100) {
      edges {
        node {
          id
          name
          label
        }
      }
    }
  }
}
    `),Kn=new k(`
    mutation CreateAgent($input: CreateAgentInput!) {
  createAgent(input: $input) {
    agent {
      id
    }
    notices
    userErrors {
      field
      code
      message
    }
  }
}
    `),On=new k(`
    mutation UpdateAgent($input: UpdateAgentInput!) {
  updateAgent(input: $input) {
    agent {
      id
    }
    notices
    userErrors {
      field
      code
      message
    }
  }
}
    `),Vn=new k(`
    query PreviewPrompt($agentId: ID!, $message: String!) {
  previewPrompt(agentId: $agentId, message: $message) {
    tokenEstimate
    budgetChars
    charCount
    warnings
    sections {
      kind
      source
      text
      truncated
      reason
    }
  }
}
    `),Fn=new k(`
    mutation InvokeAgent($input: InvokeAgentInput!) {
  invokeAgent(input: $input) {
    run {
      ...RunRow
    }
    userErrors {
      field
      code
      message
    }
  }
}
    fragment RunRow on AgentRun {
  id
  status
  input
  output
  steps
  startedAt
  finishedAt
  model
  promptTokens
  completionTokens
  error {
    code
    message
  }
  toolCalls {
    id
    toolId
    status
    latencyMs
    arguments
    error {
      code
      message
    }
  }
}`),Hn=new k(`
    subscription AgentRunEvents($runId: ID!) {
  agentRunEvents(runId: $runId) {
    kind
    at
    delta
    toolId
    step
    toolCall {
      id
      toolId
      status
      latencyMs
      error {
        code
        message
      }
    }
    run {
      id
      status
      output
      steps
      error {
        code
        message
      }
    }
  }
}
    `),jn=new k(`
    query AgentRun($id: ID!) {
  agentRun(id: $id) {
    ...RunRow
  }
}
    fragment RunRow on AgentRun {
  id
  status
  input
  output
  steps
  startedAt
  finishedAt
  model
  promptTokens
  completionTokens
  error {
    code
    message
  }
  toolCalls {
    id
    toolId
    status
    latencyMs
    arguments
    error {
      code
      message
    }
  }
}`),Gn=new k(`
    query ApiKeys($first: Int!, $after: String, $state: ApiKeyState) {
  apiKeys(first: $first, after: $after, state: $state) {
    totalCount
    pageInfo {
      hasNextPage
      endCursor
    }
    edges {
      node {
        id
        label
        role
        createdAt
        expiresAt
        revokedAt
        lastUsedAt
        state
        space {
          id
          name
        }
      }
    }
  }
}
    `),Wn=new k(`
    mutation CreateApiKey($input: CreateApiKeyInput!) {
  createApiKey(input: $input) {
    apiKey {
      id
    }
    secret
    userErrors {
      field
      code
      message
    }
  }
}
    `),zn=new k(`
    mutation RevokeApiKey($input: RevokeApiKeyInput!) {
  revokeApiKey(input: $input) {
    apiKey {
      id
      state
    }
    userErrors {
      field
      code
      message
    }
  }
}
    `),Jn=new k(`
    subscription LiveToolCalls($filter: ToolCallFilter) {
  toolCalls(filter: $filter) {
    ...CallRow
  }
}
    fragment CallRow on ToolCall {
  id
  toolId
  status
  latencyMs
  attempts
  traceId
  startedAt
  idempotencyKey
  arguments
  result
  error {
    code
    message
    detail
  }
  space {
    id
    name
  }
  agent {
    id
    name
  }
  run {
    id
  }
}`);new k(`
    query RecentToolCalls($filter: ToolCallFilter, $first: Int!, $after: String) {
  toolCalls(filter: $filter, first: $first, after: $after) {
    totalCount
    pageInfo {
      hasNextPage
      endCursor
    }
    edges {
      node {
        ...CallRow
      }
    }
  }
}
    fragment CallRow on ToolCall {
  id
  toolId
  status
  latencyMs
  attempts
  traceId
  startedAt
  idempotencyKey
  arguments
  result
  error {
    code
    message
    detail
  }
  space {
    id
    name
  }
  agent {
    id
    name
  }
  run {
    id
  }
}`);const Zt=new k(`
    query KnowledgeBases($first: Int!, $after: String) {
  knowledgeBases(first: $first, after: $after) {
    totalCount
    pageInfo {
      hasNextPage
      endCursor
    }
    edges {
      node {
        id
        name
        label
        description
        documentCount
        createdAt
        space {
          id
          name
        }
      }
    }
  }
}
    `),Qn=new k(`
    query KnowledgeBaseDocuments($id: ID!) {
  node(id: $id) {
    id
    ... on KnowledgeBase {
      documents(first: 100) {
        totalCount
        edges {
          node {
            id
            title
            source
            chunkCount
            createdAt
          }
        }
      }
    }
  }
}
    `),Yn=new k(`
    mutation CreateKnowledgeBase($input: CreateKnowledgeBaseInput!) {
  createKnowledgeBase(input: $input) {
    knowledgeBase {
      id
    }
    userErrors {
      field
      code
      message
    }
  }
}
    `),Zn=new k(`
    mutation AddDocument($input: AddDocumentInput!) {
  addDocument(input: $input) {
    document {
      id
      title
      chunkCount
    }
    outcome
    userErrors {
      field
      code
      message
    }
  }
}
    `),Xn=new k(`
    query SearchKnowledge($spaceId: ID!, $query: String!, $knowledgeBaseIds: [ID!], $topK: Int) {
  searchKnowledge(
    spaceId: $spaceId
    query: $query
    knowledgeBaseIds: $knowledgeBaseIds
    topK: $topK
  ) {
    text
    score
    headingPath
    chunkIndex
    source
    knowledgeBaseId
    document {
      id
      title
    }
  }
}
    `),er=new k(`
    query McpServers($first: Int!, $after: String) {
  mcpServers(first: $first, after: $after) {
    totalCount
    pageInfo {
      hasNextPage
      endCursor
    }
    edges {
      node {
        id
        name
        url
        command
        transport
        status
        authType
        lastSyncedAt
        lastError
        createdAt
        isGlobal
        boundSpaces {
          id
          name
        }
        tools(first: 100) {
          totalCount
          edges {
            node {
              id
              name
              label
              status
              driftedAt
            }
          }
        }
      }
    }
  }
}
    `),tr=new k(`
    mutation RegisterMcpServer($input: RegisterMcpServerInput!) {
  registerMcpServer(input: $input) {
    mcpServer {
      id
    }
    userErrors {
      field
      code
      message
    }
  }
}
    `),nr=new k(`
    mutation SyncMcpServer($id: ID!) {
  syncMcpServer(id: $id) {
    mcpServer {
      id
      lastSyncedAt
      lastError
    }
    syncReport {
      pages
      added
      updated
      unchanged
      vanished
      disabled
      drifted
      reactivated
      skipped
    }
    userErrors {
      field
      code
      message
    }
  }
}
    `),rr=new k(`
    query Skills($first: Int!, $after: String, $filter: SkillFilter) {
  skills(first: $first, after: $after, filter: $filter) {
    totalCount
    pageInfo {
      hasNextPage
      endCursor
    }
    edges {
      node {
        id
        name
        label
        type
        status
        version
        candidateVersion
        canaryPercent
        space {
          id
          name
        }
      }
    }
  }
}
    `),sr=new k(`
    query SkillDetail($id: ID!) {
  skill(id: $id) {
    id
    name
    label
    description
    prompt
    category
    tags
    triggerHints
    boundary
    toolIds
    type
    status
    version
    charCount
    createdAt
    updatedAt
    canaryPercent
    candidateVersion
    space {
      id
      name
    }
    versions {
      version
      channel
      prompt
      createdAt
    }
    channelHistory {
      action
      channel
      fromVersion
      toVersion
      canaryPercent
      actor
      at
    }
  }
}
    `),lr=new k(`
    query SkillMd($id: ID!, $version: String) {
  skill(id: $id) {
    id
    name
    skillMd(version: $version)
  }
}
    `),or=new k(`
    mutation CreateSkill($input: CreateSkillInput!) {
  createSkill(input: $input) {
    skill {
      id
    }
    userErrors {
      field
      code
      message
    }
  }
}
    `),ar=new k(`
    mutation PublishSkillVersion($input: PublishSkillVersionInput!) {
  publishSkillVersion(input: $input) {
    skillVersion {
      version
      channel
    }
    userErrors {
      field
      code
      message
    }
  }
}
    `),ir=new k(`
    mutation PromoteSkillCandidate($input: PromoteSkillCandidateInput!) {
  promoteSkillCandidate(input: $input) {
    skill {
      id
      version
    }
    userErrors {
      field
      code
      message
    }
  }
}
    `),cr=new k(`
    mutation RollbackSkill($input: RollbackSkillInput!) {
  rollbackSkill(input: $input) {
    skill {
      id
      version
    }
    userErrors {
      field
      code
      message
    }
  }
}
    `),dr=new k(`
    mutation SetSkillCanary($input: SetSkillCanaryInput!) {
  setSkillCanary(input: $input) {
    skill {
      id
      canaryPercent
    }
    userErrors {
      field
      code
      message
    }
  }
}
    `),ur=new k(`
    mutation ImportSkill($input: ImportSkillInput!) {
  importSkill(input: $input) {
    skill {
      id
    }
    isCreated
    userErrors {
      field
      code
      message
    }
  }
}
    `),hr=new k(`
    query MatchSkills($spaceId: ID!, $query: String!, $topK: Int) {
  matchSkills(spaceId: $spaceId, query: $query, topK: $topK) {
    score
    reason
    lexicalScore
    semanticScore
    boundaryFactor
    skill {
      id
      name
      label
    }
  }
}
    `),pr=new k(`
    query Spaces($first: Int!, $after: String) {
  spaces(first: $first, after: $after) {
    totalCount
    pageInfo {
      hasNextPage
      endCursor
    }
    edges {
      node {
        id
        name
        label
        isSystem
        createdAt
      }
    }
  }
}
    `),mr=new k(`
    query SpaceDetail($id: ID!) {
  space(id: $id) {
    id
    name
    label
    isSystem
    createdAt
    visibleTools(first: 100) {
      totalCount
      edges {
        node {
          id
          name
          label
          type
          isGlobal
        }
      }
    }
    skills(first: 100) {
      totalCount
      edges {
        node {
          id
          name
          label
          version
          space {
            id
          }
        }
      }
    }
    knowledgeBases(first: 100) {
      totalCount
      edges {
        node {
          id
          name
          label
          documentCount
        }
      }
    }
    agents(first: 100) {
      totalCount
      edges {
        node {
          id
          name
          model
          status
        }
      }
    }
  }
}
    `),fr=new k(`
    mutation CreateSpace($input: CreateSpaceInput!) {
  createSpace(input: $input) {
    space {
      id
      name
      label
    }
    userErrors {
      field
      code
      message
    }
  }
}
    `),br=new k(`
    query Tools($first: Int!, $after: String, $filter: ToolFilter) {
  tools(first: $first, after: $after, filter: $filter) {
    totalCount
    pageInfo {
      hasNextPage
      endCursor
    }
    edges {
      node {
        ...ToolRow
      }
    }
  }
}
    fragment ToolRow on Tool {
  id
  name
  label
  type
  status
  isGlobal
  sideEffect
  driftedAt
  boundSpaces {
    id
    name
  }
  mcpServer {
    id
    name
  }
}`),gr=new k(`
    query SpaceTools($spaceId: ID!, $first: Int!, $after: String, $filter: ToolFilter) {
  space(id: $spaceId) {
    id
    visibleTools(
      first: $first
      after: $after
      filter: $filter
      includeInactive: true
    ) {
      totalCount
      pageInfo {
        hasNextPage
        endCursor
      }
      edges {
        node {
          ...ToolRow
        }
      }
    }
  }
}
    fragment ToolRow on Tool {
  id
  name
  label
  type
  status
  isGlobal
  sideEffect
  driftedAt
  boundSpaces {
    id
    name
  }
  mcpServer {
    id
    name
  }
}`),Xt=new k(`
    query ToolDetail($id: ID!) {
  tool(id: $id) {
    id
    name
    label
    description
    inputSchema
    outputSchema
    type
    status
    endpoint
    authType
    viewerCanManage
    sideEffect
    timeoutMs
    maxRetries
    tags
    group
    allowedRoles
    version
    owner
    createdAt
    updatedAt
    driftedAt
    isGlobal
    boundSpaces {
      id
      name
      label
    }
    mcpServer {
      id
      name
      isGlobal
      boundSpaces {
        id
        name
        label
      }
    }
    stats {
      calls
      failures
      failuresByCode
      p50LatencyMs
      p95LatencyMs
      lastCalledAt
    }
  }
}
    `),_r=new k(`
    mutation CreateTool($input: CreateToolInput!) {
  createTool(input: $input) {
    tool {
      id
    }
    userErrors {
      field
      code
      message
    }
  }
}
    `),yr=new k(`
    mutation UpdateTool($input: UpdateToolInput!) {
  updateTool(input: $input) {
    tool {
      id
    }
    userErrors {
      field
      code
      message
    }
  }
}
    `),vr=new k(`
    mutation SetSpaceBindings($input: SetBindingsInput!) {
  setSpaceBindings(input: $input) {
    tool {
      id
      isGlobal
      boundSpaces {
        id
      }
    }
    mcpServer {
      id
      isGlobal
      boundSpaces {
        id
      }
    }
    userErrors {
      field
      code
      message
    }
  }
}
    `),ot=new k(`
    mutation SetStatus($input: SetStatusInput!) {
  setStatus(input: $input) {
    node {
      id
    }
    userErrors {
      field
      code
      message
    }
  }
}
    `),Sr=new k(`
    mutation InvokeTool($input: InvokeToolInput!) {
  invokeTool(input: $input) {
    status
    data
    traceId
    latencyMs
    error {
      code
      message
      detail
    }
  }
}
    `),en=new k(`
    query Viewer {
  viewer {
    role
    keyId
    keyLabel
    space {
      id
      name
      label
    }
  }
}
    `),Ir=new k(`
    query SpaceOptions {
  spaces(first: 100) {
    edges {
      node {
        id
        name
        label
        isSystem
      }
    }
  }
}
    `),Xe="/console";function re(t,{replace:n=!1}={}){n?window.history.replaceState(null,"",t):window.history.pushState(null,"",t),window.dispatchEvent(new PopStateEvent("popstate"))}function tn(){const[t,n]=h(Tt);return F(()=>{const r=()=>n(Tt());return window.addEventListener("popstate",r),()=>window.removeEventListener("popstate",r)},[]),t}function Tt(){const t=window.location.pathname;return(t.startsWith(Xe)?t.slice(Xe.length):t).replace(/\/+$/,"")}function kr(t){return tn(),new URLSearchParams(window.location.search).get(t)}function X(t){return`${Xe}${t}`}function C({to:t,children:n,...r}){return e("a",{...r,href:X(t),onClick:s=>{s.defaultPrevented||s.button!==0||s.metaKey||s.ctrlKey||s.shiftKey||(s.preventDefault(),re(X(t)))},children:n})}const wr=4e3;function Cr(t){const n=t.role,r=t.space?.id??null;return{admin:n==="ADMIN",manageSome:n==="ADMIN"||n==="SPACE_ADMIN",invoke:n!=="VIEWER",manage:s=>n==="ADMIN"||n==="SPACE_ADMIN"&&s!=null&&s===r}}const nn=Pn(null);function A(){const t=Nn(nn);if(t===null)throw new Error("useSession outside a signed-in console");return t}function j(t,n){const[r,s]=h({data:null,error:null,loading:!0}),[o,l]=h(0);F(()=>{let c=!0;return s(u=>({...u,loading:!0})),t().then(u=>c&&s({data:u,error:null,loading:!1}),u=>{c&&!(u instanceof tt)&&s(i=>({...i,error:ee(u),loading:!1}))}),()=>{c=!1}},[...n,o]);const a=Le(()=>l(c=>c+1),[]);return{...r,reload:a}}function ee(t){return t instanceof Error?t.message:String(t)}function K(){const[t,n]=h(!1),[r,s]=h([]),o=Le(async l=>{n(!0),s([]);try{const a=await l();return s(a.userErrors),a.userErrors.length===0?a:null}catch(a){return a instanceof tt||s([{field:null,code:"ERROR",message:ee(a)}]),null}finally{n(!1)}},[]);return{busy:t,errors:r,setErrors:s,run:o}}function at(t,n){const r=n.split(".");return t.filter(s=>{const o=s.field??[];return o.length>=r.length&&r.every((l,a)=>o[o.length-r.length+a]===l)})}function V({errors:t,fields:n}){const r=t.filter(s=>n.every(o=>!at([s],o).length));return r.length?e("div",{class:"form-errors",role:"alert",children:r.map((s,o)=>e("p",{children:[s.message," ",e("span",{class:"code",children:s.code})]},o))}):null}function we({label:t,name:n,errors:r=[],hint:s,children:o}){const l=xn(),a=at(r,n),c=[s?`${l}-hint`:"",a.length?`${l}-error`:""].filter(Boolean).join(" ");return e("div",{class:`field${a.length?" invalid":""}`,children:[e("label",{for:l,children:t}),o({id:l,"aria-invalid":a.length>0,"aria-describedby":c||void 0}),s&&e("p",{class:"hint",id:`${l}-hint`,children:s}),a.length>0&&e("p",{class:"field-error",id:`${l}-error`,role:"alert",children:a.map(u=>u.message).join(" ")})]})}function w({label:t,name:n,value:r,onInput:s,errors:o,hint:l,type:a="text",...c}){return e(we,{label:t,name:n,errors:o,hint:l,children:u=>e("input",{...u,...c,name:n,type:a,value:r,onInput:i=>s(i.currentTarget.value)})})}function Z({label:t,name:n,value:r,onInput:s,errors:o,hint:l,rows:a=6,mono:c=!1}){return e(we,{label:t,name:n,errors:o,hint:l,children:u=>e("textarea",{...u,class:c?"mono":void 0,name:n,rows:a,value:r,spellcheck:!c,onInput:i=>s(i.currentTarget.value)})})}function q({label:t,name:n,value:r,options:s,onChange:o,errors:l,hint:a}){return e(we,{label:t,name:n,errors:l,hint:a,children:c=>e("select",{...c,name:n,value:s.some(([u])=>u===r)?r:s[0]?.[0],onChange:u=>o(u.currentTarget.value),children:s.map(([u,i])=>e("option",{value:u,children:i},u))})})}function ce({legend:t,options:n,selected:r,onChange:s,errors:o=[],name:l}){const a=at(o,l);return e("fieldset",{class:"checkbox-group",children:[e("legend",{children:t}),n.length===0&&e("p",{class:"hint",children:"Nothing to choose from."}),n.map(c=>e("label",{class:"check",children:[e("input",{type:"checkbox",checked:r.includes(c.value),onChange:u=>s(u.currentTarget.checked?[...r,c.value]:r.filter(i=>i!==c.value))}),c.label]},c.value)),a.length>0&&e("p",{class:"field-error",role:"alert",children:a.map(c=>c.message).join(" ")})]})}function qe(t){if(!t.trim())return{value:null,problem:null};try{return{value:JSON.parse(t),problem:null}}catch(n){return{value:null,problem:`Not valid JSON: ${ee(n)}`}}}function Be(t){return JSON.stringify(t,null,2)}function fe({value:t,label:n}){return e("pre",{class:"json","aria-label":n,tabIndex:0,children:t==null?"—":Be(t)})}let Et=!0;function M({title:t,children:n}){const r=Oe(null);return F(()=>{if(Et){Et=!1;return}r.current?.focus({preventScroll:!0})},[t]),e("header",{class:"page-header",children:[e("h1",{tabIndex:-1,ref:r,children:t}),n&&e("div",{class:"actions",children:n})]})}function Q({error:t,retry:n}){return t?e("div",{class:"form-errors",role:"alert",children:[e("p",{children:t}),n&&e("button",{type:"button",onClick:n,children:"Try again"})]}):null}function Ce({children:t}){return e("div",{class:"notice",role:"status",children:t})}function T({children:t,tone:n="plain"}){return e("span",{class:`badge ${n}`,children:t})}function G(t){return t==="ACTIVE"||t==="SUCCESS"||t==="SUCCEEDED"||t==="PRODUCTION"?"good":t==="DISABLED"||t==="FAILED"||t==="MAX_STEPS"?"bad":t==="RUNNING"||t==="CANDIDATE"||t==="QUEUED"?"busy":"plain"}function H(t){if(!t)return"—";const n=new Date(t);return Number.isNaN(n.getTime())?t:n.toLocaleString()}function de(t){return t==null?"—":`${t<10?t.toFixed(1):Math.round(t)} ms`}function ue(t){const[n,r]=h([null]);return F(()=>r([null]),[t]),{after:n[n.length-1],page:n.length,next:o=>o&&r(l=>[...l,o]),previous:()=>r(o=>o.length>1?o.slice(0,-1):o)}}function he({label:t,page:n,pageSize:r,shown:s,total:o,hasNext:l,onNext:a,onPrevious:c}){const u=o===0?0:(n-1)*r+1;return e("nav",{class:"pager","aria-label":`${t} pages`,children:[e("button",{type:"button",onClick:c,disabled:n<=1,children:"Previous page"}),e("span",{"aria-live":"polite",children:[u,"–",u+s-(s?1:0)," of ",o.toLocaleString()]}),e("button",{type:"button",onClick:a,disabled:!l,children:"Next page"})]})}const Ge=50,Ar=["ADMIN","SPACE_ADMIN","MEMBER","VIEWER"];function $r({sub:t}){if(t==="new")return e(rn,{tool:null});const[n,r]=t.split("/");return n&&r==="edit"?e(qr,{id:decodeURIComponent(n)}):n?e(Rr,{id:decodeURIComponent(n)}):e(Er,{})}function Y(){const{api:t}=A();return j(async()=>(await t.request(Ir,{})).spaces.edges.map(({node:n})=>n),[])}function Tr(t,n){const[r,s]=h(t);return F(()=>{const o=window.setTimeout(()=>s(t),n);return()=>window.clearTimeout(o)},[t,n]),r}function ve(t){const[n,r]=h(kr(t)??"");return[n,o=>{r(o);const l=new URLSearchParams(window.location.search);o?l.set(t,o):l.delete(t);const a=l.toString();window.history.replaceState(null,"",`${window.location.pathname}${a?`?${a}`:""}`)}]}function Er(){const{api:t,can:n}=A(),r=Y(),[s,o]=ve("search"),[l,a]=ve("type"),[c,u]=ve("status"),[i,m]=ve("binding"),[p,d]=ve("space"),g={search:Tr(s.trim(),250)||null,type:l||null,status:c||null,isGlobal:i===""?null:i==="global"},S=JSON.stringify([g,p]),I=ue(S),_=j(async()=>{if(p){const y=await t.request(gr,{spaceId:p,first:Ge,after:I.after,filter:g});if(!y.space)throw new Error(`Space ${p} is not visible to this key.`);return y.space.visibleTools}return(await t.request(br,{first:Ge,after:I.after,filter:g})).tools},[S,I.after]),b=_.data;return e(v,{children:[e(M,{title:"Tools",children:n.manageSome&&e(C,{class:"button primary",to:"/tools/new",children:"Create tool"})}),e("form",{class:"filters",role:"search","aria-label":"Filter tools",onSubmit:y=>y.preventDefault(),children:[e(w,{label:"Search",name:"search",value:s,onInput:o,placeholder:"name, label or description"}),e(q,{label:"Type",name:"type",value:l,onChange:a,options:[["","Any type"],["BUILTIN","Builtin"],["CUSTOM","Custom (HTTP)"],["MCP","MCP"]]}),e(q,{label:"Status",name:"status",value:c,onChange:u,options:[["","Any status"],["ACTIVE","Active"],["DISABLED","Disabled"],["ARCHIVED","Archived"]]}),e(q,{label:"Space",name:"space",value:p,onChange:d,options:[["",n.admin?"Every space":"My space"],...(r.data??[]).map(y=>[y.id,y.label])],hint:p?"Tools visible in this space.":void 0}),e(q,{label:"Binding",name:"scope",value:i,onChange:m,options:[["","Global and bound"],["global","Global only"],["bound","Bound only"]]})]}),e(Q,{error:_.error,retry:_.reload}),b&&e("div",{"aria-busy":_.loading,children:[e("table",{class:"tools",children:[e("caption",{class:"sr-only",children:"Tools"}),e("thead",{children:e("tr",{children:[e("th",{scope:"col",children:"Name"}),e("th",{scope:"col",children:"Label"}),e("th",{scope:"col",children:"Type"}),e("th",{scope:"col",children:"Status"}),e("th",{scope:"col",children:"Visible in"})]})}),e("tbody",{children:b.edges.map(({node:y})=>e(Pr,{tool:y},y.id))})]}),b.edges.length===0&&e("p",{class:"empty",children:"No tool matches."}),e(he,{label:"Tools",page:I.page,pageSize:Ge,shown:b.edges.length,total:b.totalCount,hasNext:b.pageInfo.hasNextPage,onNext:()=>I.next(b.pageInfo.endCursor),onPrevious:I.previous})]})]})}function Pr({tool:t}){return e("tr",{children:[e("td",{children:[e(C,{to:`/tools/${encodeURIComponent(t.id)}`,children:t.name}),t.driftedAt&&e(v,{children:[" ",e(T,{tone:"bad",children:"drifted"})]})]}),e("td",{children:t.label}),e("td",{children:e(T,{children:t.type})}),e("td",{children:e(T,{tone:G(t.status),children:t.status})}),e("td",{children:Dr(t)})]})}function Dr(t){if(t.isGlobal)return t.mcpServer?"every space (server is global)":"every space (global)";const n=t.boundSpaces.map(r=>r.name).join(", ");return t.mcpServer?`spaces of server ${t.mcpServer.name}`:n||"bound"}function Rr({id:t}){const{api:n}=A(),r=j(()=>n.request(Xt,{id:t}),[t]),s=r.data?.tool,o=new URLSearchParams(window.location.search).get("saved");return r.data&&!s?e(v,{children:[e(M,{title:"Tool not found"}),e("p",{children:["No tool ",e("code",{children:t})," is visible to this key. ",e(C,{to:"/tools",children:"Back to Tools"})]})]}):e(v,{children:[e(M,{title:s?`Tool ${s.name}`:"Tool",children:[e(C,{class:"button",to:"/tools",children:"All tools"}),s?.type==="CUSTOM"&&s.viewerCanManage&&e(C,{class:"button",to:`/tools/${encodeURIComponent(s.id)}/edit`,children:"Edit tool"})]}),e(Q,{error:r.error,retry:r.reload}),o&&e(Ce,{children:["Tool ",o==="created"?"created":"saved","."]}),s&&e(v,{children:[e(xr,{tool:s,onChanged:r.reload}),e("section",{"aria-labelledby":"tool-definition",children:[e("h2",{id:"tool-definition",children:"Definition"}),e("dl",{class:"facts",children:[e("dt",{children:"Label"}),e("dd",{children:s.label}),e("dt",{children:"Id"}),e("dd",{children:e("code",{children:s.id})}),e("dt",{children:"Type"}),e("dd",{children:s.type}),e("dt",{children:"Description"}),e("dd",{class:"prose",children:s.description}),s.endpoint&&e(v,{children:[e("dt",{children:"Endpoint"}),e("dd",{children:e("code",{children:s.endpoint})})]}),e("dt",{children:"Credentials"}),e("dd",{children:s.authType==="NONE"?"none":`${s.authType} (secret stored, never shown)`}),e("dt",{children:"Side effect"}),e("dd",{children:s.sideEffect}),e("dt",{children:"Version"}),e("dd",{children:s.version}),e("dt",{children:"Owner"}),e("dd",{children:s.owner??"—"}),e("dt",{children:"Tags"}),e("dd",{children:s.tags.length?s.tags.join(", "):"—"}),e("dt",{children:"Group"}),e("dd",{children:s.group??"—"}),s.driftedAt&&e(v,{children:[e("dt",{children:"Drift"}),e("dd",{children:[e(T,{tone:"bad",children:"drifted"})," the MCP server changed its description or schema on ",H(s.driftedAt),". Re-activating the tool accepts the change."]})]})]})]}),e("section",{"aria-labelledby":"tool-policies",children:[e("h2",{id:"tool-policies",children:"Policies"}),e("dl",{class:"facts",children:[e("dt",{children:"Timeout"}),e("dd",{children:[s.timeoutMs.toLocaleString()," ms per attempt"]}),e("dt",{children:"Retries"}),e("dd",{children:[s.maxRetries," ",s.sideEffect==="WRITE"?"(only with an idempotency key)":""]}),e("dt",{children:"Allowed roles"}),e("dd",{children:s.allowedRoles.length?s.allowedRoles.join(", "):"every role"})]})]}),e(Mr,{tool:s,onChanged:r.reload}),e("section",{"aria-labelledby":"tool-stats",children:[e("h2",{id:"tool-stats",children:"Calls"}),e("dl",{class:"facts",children:[e("dt",{children:"Calls"}),e("dd",{children:s.stats.calls.toLocaleString()}),e("dt",{children:"Failures"}),e("dd",{children:s.stats.failures.toLocaleString()}),e("dt",{children:"p50 latency"}),e("dd",{children:de(s.stats.p50LatencyMs)}),e("dt",{children:"p95 latency"}),e("dd",{children:de(s.stats.p95LatencyMs)}),e("dt",{children:"Last call"}),e("dd",{children:H(s.stats.lastCalledAt)})]}),e(Nr,{value:s.stats.failuresByCode})]}),e("section",{"aria-labelledby":"tool-schemas",children:[e("h2",{id:"tool-schemas",children:"Schemas"}),e("h3",{children:"Input schema"}),e(fe,{label:"Input schema",value:s.inputSchema}),e("h3",{children:"Output schema"}),e(fe,{label:"Output schema",value:s.outputSchema})]}),e(Lr,{tool:s})]})]})}function Nr({value:t}){const n=t&&typeof t=="object"?Object.entries(t):[];return n.length?e("table",{class:"compact",children:[e("caption",{children:"Failures by code"}),e("thead",{children:e("tr",{children:[e("th",{scope:"col",children:"Code"}),e("th",{scope:"col",children:"Failures"})]})}),e("tbody",{children:n.map(([r,s])=>e("tr",{children:[e("td",{children:e("code",{children:r})}),e("td",{children:s})]},r))})]}):e("p",{class:"muted",children:"No failures."})}function xr({tool:t,onChanged:n}){const{api:r}=A(),s=K(),o=async l=>{await s.run(async()=>(await r.request(ot,{input:{id:t.id,status:l}})).setStatus)&&n()};return e("div",{class:"status-line",children:[e("span",{children:["Status ",e(T,{tone:G(t.status),children:t.status})]}),t.viewerCanManage&&t.status!=="ACTIVE"&&e("button",{type:"button",onClick:()=>o("ACTIVE"),disabled:s.busy,children:t.driftedAt?"Re-activate tool":"Enable tool"}),t.viewerCanManage&&t.status==="ACTIVE"&&e("button",{type:"button",onClick:()=>o("DISABLED"),disabled:s.busy,children:"Disable tool"}),e(V,{errors:s.errors,fields:[]})]})}function Mr({tool:t,onChanged:n}){const{api:r,can:s}=A(),o=Y(),l=t.mcpServer,a=(l?l.boundSpaces:t.boundSpaces).map(S=>S.id),[c,u]=h(a);F(()=>u(a),[a.join(",")]);const i=K(),[m,p]=h(!1),d=l?l.isGlobal:t.isGlobal,f=async S=>{S.preventDefault(),p(!1),await i.run(async()=>(await r.request(vr,{input:{id:l?l.id:t.id,spaceIds:c}})).setSpaceBindings)&&(p(!0),n())},g=(l?l.boundSpaces:t.boundSpaces).map(S=>S.label).join(", ");return e("section",{"aria-labelledby":"tool-bindings",children:[e("h2",{id:"tool-bindings",children:"Bindings"}),e("p",{children:[d?e(v,{children:[e(T,{children:"global"})," no binding row: every space sees this tool"]}):e(v,{children:[e(T,{tone:"busy",children:"bound"})," only these spaces see it: ",g]}),l&&e(v,{children:[" ","— inherited from MCP server ",e("strong",{children:l.name})]}),"."]}),s.admin&&e("form",{class:"card form",onSubmit:f,"aria-label":l?`Bindings of MCP server ${l.name}`:"Bindings",children:[e(ce,{legend:l?`Spaces bound to MCP server ${l.name}`:"Bound spaces (none checked: global)",name:"spaceIds",options:(o.data??[]).map(S=>({value:S.id,label:`${S.label} (${S.name})`})),selected:c,onChange:u,errors:i.errors}),e(V,{errors:i.errors,fields:["spaceIds"]}),e("div",{class:"buttons",children:[e("button",{type:"submit",disabled:i.busy,children:"Save bindings"}),m&&e("span",{role:"status",children:"Bindings saved."})]})]})]})}function Lr({tool:t}){const{api:n,can:r,viewer:s}=A(),o=Y(),[l,a]=h(s.space?.id??""),[c,u]=h("{}"),[i,m]=h(null),[p,d]=h(null),[f,g]=h(!1);if(!r.invoke||t.status!=="ACTIVE")return null;const S=(o.data??[]).map(_=>[_.id,_.label]);return e("section",{"aria-labelledby":"tool-try",children:[e("h2",{id:"tool-try",children:"Try it"}),e("form",{class:"card form",onSubmit:async _=>{_.preventDefault();const b=qe(c);if(b.problem){d(b.problem);return}g(!0),d(null);try{const y=await n.request(Sr,{input:{spaceId:l||S[0]?.[0]||"",toolId:t.id,arguments:b.value??{}}});m(y.invokeTool)}catch(y){d(ee(y))}finally{g(!1)}},children:[r.admin&&e(q,{label:"Call in space",name:"spaceId",value:l,onChange:a,options:S}),e(we,{label:"Arguments (JSON)",name:"arguments",errors:p?[{field:["arguments"],code:"JSON",message:p}]:[],children:_=>e("textarea",{..._,class:"mono",rows:4,value:c,onInput:b=>u(b.currentTarget.value)})}),e("div",{class:"buttons",children:e("button",{type:"submit",disabled:f,children:"Call tool"})})]}),i&&e("div",{class:"result",role:"status",children:[e("p",{children:[e(T,{tone:G(i.status),children:i.status})," in ",de(i.latencyMs)," · trace ",e("code",{children:i.traceId})]}),i.error?e("p",{children:[e("code",{children:i.error.code})," ",i.error.message]}):e(fe,{label:"Result",value:i.data})]})]})}function qr({id:t}){const{api:n}=A(),r=j(()=>n.request(Xt,{id:t}),[t]);return r.error?e(Q,{error:r.error,retry:r.reload}):r.data?r.data.tool?e(rn,{tool:r.data.tool}):e("p",{children:["No tool ",t," is visible to this key."]}):e("p",{"aria-busy":"true",children:"Loading…"})}const Br=[["NONE","None"],["BEARER","Bearer token"],["API_KEY","API key header"],["HEADER","Custom header"],["OAUTH_CLIENT_CREDENTIALS","OAuth client credentials"]],Ur=Be({type:"object",properties:{orderId:{type:"string",description:"The order number."}},required:["orderId"]});function Pt(t,n){const r=qe(t);return r.problem?r.problem:r.value===null?n?"An input schema is required.":null:typeof r.value!="object"||Array.isArray(r.value)?"A JSON Schema is a JSON object.":n&&r.value.type!=="object"?'The input schema must have "type": "object".':null}function rn({tool:t}){const{api:n,can:r,viewer:s}=A(),o=Y(),l=t===null,[a,c]=h(t?.name??""),[u,i]=h(t?.label??""),[m,p]=h(t?.description??""),[d,f]=h(t?Be(t.inputSchema):Ur),[g,S]=h(t?.outputSchema?Be(t.outputSchema):""),[I,_]=h(t?.endpoint??""),[b,y]=h(t?.authType??"NONE"),[L,D]=h(""),[W,$]=h(""),[J,E]=h(""),[P,O]=h(""),[Ae,z]=h(t?.sideEffect??"READ"),[se,it]=h(t?String(t.timeoutMs):""),[pe,N]=h(t?String(t.maxRetries):""),[be,oe]=h(t?.tags.join(", ")??""),[ct,cn]=h(t?.group??""),[dt,dn]=h(t?.allowedRoles??[]),[ut,un]=h(t?.version??""),[ht,hn]=h(t?.owner??""),[Ve,pn]=h(!r.admin&&s.space?[s.space.id]:[]),ge=K(),pt=me(()=>Pt(d,!0),[d]),mt=me(()=>Pt(g,!1),[g]);if(!r.manageSome)return e("p",{children:"This key cannot create or change tools."});const Fe=[...pt?[{field:["input","inputSchema"],code:"INVALID_JSON",message:pt}]:[],...mt?[{field:["input","outputSchema"],code:"INVALID_JSON",message:mt}]:[]],B=[...Fe,...ge.errors.filter(te=>!Fe.some($e=>$e.field.join()===te.field?.join()))],mn=l||b!==t?.authType||W!==""||L!==""||J!==""||P!=="",fn=async te=>{if(te.preventDefault(),Fe.length)return;const $e=mn?{type:b,headerName:L||null,secret:W||null,tokenUrl:J||null,clientId:P||null}:null,ft={label:u,description:m,inputSchema:qe(d).value,outputSchema:qe(g).value,endpoint:I,sideEffect:Ae,timeoutMs:se?Number(se):null,maxRetries:pe?Number(pe):null,tags:be.split(",").map(_e=>_e.trim()).filter(Boolean),group:ct||(l?null:""),allowedRoles:dt,version:ut||null,owner:ht||(l?null:"")};if(l){const _e={...ft,name:a,auth:$e,spaceIds:Ve.length?Ve:null},ye=await ge.run(async()=>(await n.request(_r,{input:_e})).createTool);ye?.tool&&re(X(`/tools/${encodeURIComponent(ye.tool.id)}?saved=created`))}else{const _e={...ft,id:t.id,auth:$e},ye=await ge.run(async()=>(await n.request(yr,{input:_e})).updateTool);ye?.tool&&re(X(`/tools/${encodeURIComponent(ye.tool.id)}?saved=updated`))}$("")},bn=["name","label","description","inputSchema","outputSchema","endpoint","auth","auth.type","auth.headerName","auth.secret","auth.tokenUrl","auth.clientId","sideEffect","timeoutMs","maxRetries","tags","group","allowedRoles","version","owner","spaceIds"];return e(v,{children:[e(M,{title:l?"Create tool":`Edit tool ${t.name}`}),e("form",{class:"card form wide",onSubmit:fn,noValidate:!0,children:[e("p",{class:"hint",children:"A CUSTOM tool is an HTTP endpoint Quiver POSTs the arguments to, with the stored credentials."}),l?e(w,{label:"Name",name:"name",value:a,onInput:c,errors:B,hint:"For the model: ^[a-zA-Z0-9_-]{1,64}$, unique where it is visible."}):e("p",{children:["Name ",e("code",{children:t.name})," (fixed)"]}),e(w,{label:"Label",name:"label",value:u,onInput:i,errors:B}),e(Z,{label:"Description",name:"description",value:m,onInput:p,errors:B,rows:3,hint:"Written for the model: what it does, when to use it, when not to."}),e(w,{label:"Endpoint",name:"endpoint",value:I,onInput:_,errors:B,type:"url",placeholder:"https://…"}),e(Z,{label:"Input schema",name:"inputSchema",value:d,onInput:f,errors:B,rows:10,mono:!0,hint:'JSON Schema 2020-12 of the arguments, with "type": "object".'}),e(Z,{label:"Output schema",name:"outputSchema",value:g,onInput:S,errors:B,rows:5,mono:!0,hint:"Optional JSON Schema of the result."}),e("fieldset",{children:[e("legend",{children:"Credentials"}),!l&&t.authType!=="NONE"&&e("p",{class:"hint",children:["A ",t.authType," secret is stored and never shown. Leave these fields alone to keep it; credentials are replaced as a whole."]}),e(q,{label:"Authentication",name:"auth.type",value:b,onChange:y,options:Br,errors:B}),(b==="API_KEY"||b==="HEADER")&&e(w,{label:"Header name",name:"auth.headerName",value:L,onInput:D,errors:B}),b==="OAUTH_CLIENT_CREDENTIALS"&&e(v,{children:[e(w,{label:"Token URL",name:"auth.tokenUrl",value:J,onInput:E,errors:B,type:"url"}),e(w,{label:"Client id",name:"auth.clientId",value:P,onInput:O,errors:B})]}),b!=="NONE"&&e(w,{label:"Secret",name:"auth.secret",value:W,onInput:$,errors:B,type:"password",autoComplete:"new-password",hint:l?"Write-only: stored encrypted, never shown again.":"Write-only: type a new secret to replace the stored one."})]}),e("fieldset",{children:[e("legend",{children:"Policies"}),e(q,{label:"Side effect",name:"sideEffect",value:Ae,onChange:z,errors:B,options:[["READ","READ (safe to retry)"],["WRITE","WRITE (retried only with an idempotency key)"]]}),e(w,{label:"Timeout (ms)",name:"timeoutMs",value:se,onInput:it,errors:B,type:"number",placeholder:"10000"}),e(w,{label:"Max retries",name:"maxRetries",value:pe,onInput:N,errors:B,type:"number",placeholder:"1"}),e(ce,{legend:"Allowed roles (none checked: every role)",name:"allowedRoles",options:Ar.map(te=>({value:te,label:te})),selected:dt,onChange:dn,errors:B})]}),e("fieldset",{children:[e("legend",{children:"Catalog"}),e(w,{label:"Tags",name:"tags",value:be,onInput:oe,errors:B,hint:"Comma-separated."}),e(w,{label:"Group",name:"group",value:ct,onInput:cn,errors:B}),e(w,{label:"Version",name:"version",value:ut,onInput:un,errors:B,placeholder:"1.0.0"}),e(w,{label:"Owner",name:"owner",value:ht,onInput:hn,errors:B})]}),l&&r.admin&&e(ce,{legend:"Bind to spaces (none checked: global)",name:"spaceIds",options:(o.data??[]).map(te=>({value:te.id,label:`${te.label} (${te.name})`})),selected:Ve,onChange:pn,errors:B}),e(V,{errors:ge.errors,fields:bn}),e("div",{class:"buttons",children:[e("button",{type:"submit",class:"primary",disabled:ge.busy,children:l?"Create tool":"Save tool"}),e(C,{class:"button",to:l?"/tools":`/tools/${encodeURIComponent(t.id)}`,children:"Cancel"})]})]})]})}const Dt=50;function Kr({sub:t}){return t==="new"?e(sn,{agent:null}):t?e(Vr,{id:decodeURIComponent(t)}):e(Or,{})}function Or(){const{api:t,can:n}=A(),r=ue("agents"),s=j(()=>t.request(qn,{first:Dt,after:r.after}),[r.after]),o=s.data?.agents;return e(v,{children:[e(M,{title:"Agents",children:n.manageSome&&e(C,{class:"button primary",to:"/agents/new",children:"Create agent"})}),e(Q,{error:s.error,retry:s.reload}),o&&e(v,{children:[e("table",{children:[e("caption",{class:"sr-only",children:"Agents"}),e("thead",{children:e("tr",{children:[e("th",{scope:"col",children:"Name"}),e("th",{scope:"col",children:"Space"}),e("th",{scope:"col",children:"Model"}),e("th",{scope:"col",children:"Status"}),e("th",{scope:"col",children:"Changed"})]})}),e("tbody",{children:o.edges.map(({node:l})=>e("tr",{children:[e("td",{children:e(C,{to:`/agents/${encodeURIComponent(l.id)}`,children:l.name})}),e("td",{children:l.space.name}),e("td",{children:e("code",{children:l.model})}),e("td",{children:e(T,{tone:G(l.status),children:l.status})}),e("td",{children:H(l.updatedAt)})]},l.id))})]}),o.edges.length===0&&e("p",{class:"empty",children:"No agent yet."}),e(he,{label:"Agents",page:r.page,pageSize:Dt,shown:o.edges.length,total:o.totalCount,hasNext:o.pageInfo.hasNextPage,onNext:()=>r.next(o.pageInfo.endCursor),onPrevious:r.previous})]})]})}function Vr({id:t}){const{api:n,can:r}=A(),s=j(()=>n.request(Bn,{id:t}),[t]),o=s.data?.agent,[l,a]=h(!1);if(s.data&&!o)return e(v,{children:[e(M,{title:"Agent not found"}),e("p",{children:["No agent ",e("code",{children:t})," is visible to this key. ",e(C,{to:"/agents",children:"Back to Agents"})]})]});const c=o?r.manage(o.space.id):!1;return e(v,{children:[e(M,{title:o?`Agent ${o.name}`:"Agent",children:[e(C,{class:"button",to:"/agents",children:"All agents"}),c&&!l&&e("button",{type:"button",onClick:()=>a(!0),children:"Edit manifest"})]}),e(Q,{error:s.error,retry:s.reload}),o&&l&&e(sn,{agent:o,onSaved:()=>{a(!1),s.reload()},onCancel:()=>a(!1)}),o&&!l&&e(v,{children:[e("dl",{class:"facts",children:[e("dt",{children:"Space"}),e("dd",{children:o.space.name}),e("dt",{children:"Model"}),e("dd",{children:e("code",{children:o.model})}),e("dt",{children:"Status"}),e("dd",{children:e(T,{tone:G(o.status),children:o.status})}),e("dt",{children:"Max steps"}),e("dd",{children:o.maxSteps}),e("dt",{children:"Knowledge bases"}),e("dd",{children:o.mountedKnowledgeBases.map(u=>u.name).join(", ")||"—"}),e("dt",{children:"Tools"}),e("dd",{children:o.activatedTools.map(u=>u.name).join(", ")||"—"}),e("dt",{children:"Skills"}),e("dd",{children:o.boundSkillReferences.join(", ")||"—"}),e("dt",{children:"System prompt"}),e("dd",{class:"prose",children:o.systemPrompt}),e("dt",{children:"Output format"}),e("dd",{class:"prose",children:o.outputFormat??"—"})]}),e(Hr,{agentId:o.id}),r.invoke&&o.status==="ACTIVE"&&e(jr,{agentId:o.id,onFinished:s.reload}),e(Gr,{agent:o})]})]})}function Fr(t){return t.split(/[\n,]/).map(n=>n.trim()).filter(Boolean)}function sn({agent:t,onSaved:n,onCancel:r}){const{api:s,can:o,viewer:l}=A(),a=Y(),[c,u]=h(t?.space.id??l.space?.id??""),[i,m]=h(t?.name??""),[p,d]=h(t?.model??""),[f,g]=h(t?.systemPrompt??""),[S,I]=h(String(t?.maxSteps??5)),[_,b]=h(t?.outputFormat??""),[y,L]=h(t?.mountedKnowledgeBases.map(N=>N.id)??[]),[D,W]=h(t?.activatedTools.map(N=>N.id)??[]),[$,J]=h(t?.boundSkillReferences.join(`
`)??""),[E,P]=h([]),O=c||a.data?.find(N=>!N.isSystem)?.id||"",Ae=j(async()=>O?(await s.request(Un,{spaceId:O})).space:null,[O]),z=K();if(!o.manageSome)return e("p",{children:"This key cannot create or change agents."});const se=Ae.data,pe=e("form",{class:"card form wide",onSubmit:async N=>{N.preventDefault();const be={name:i,model:p,systemPrompt:f,maxSteps:Number(S)||null,outputFormat:_||(t?"":null),mountedKnowledgeBaseIds:y,activatedToolIds:D,boundSkillIds:Fr($)};if(t){const oe=await z.run(async()=>(await s.request(On,{input:{id:t.id,...be}})).updateAgent);oe&&(P(oe.notices),n?.())}else{const oe=await z.run(async()=>(await s.request(Kn,{input:{...be,spaceId:O,maxSteps:Number(S)||5}})).createAgent);oe?.agent&&re(X(`/agents/${encodeURIComponent(oe.agent.id)}`))}},"aria-label":"Agent manifest",children:[!t&&o.admin&&e(q,{label:"Space",name:"spaceId",value:O,onChange:u,errors:z.errors,options:(a.data??[]).map(N=>[N.id,N.label])}),e(w,{label:"Name",name:"name",value:i,onInput:m,errors:z.errors}),e(w,{label:"Model",name:"model",value:p,onInput:d,errors:z.errors,hint:"The model name sent to the OpenAI-compatible endpoint."}),e(Z,{label:"System prompt",name:"systemPrompt",value:f,onInput:g,errors:z.errors,rows:6}),e(w,{label:"Max steps",name:"maxSteps",value:S,onInput:I,errors:z.errors,type:"number"}),e(Z,{label:"Output format",name:"outputFormat",value:_,onInput:b,errors:z.errors,rows:2}),se&&e(v,{children:[e(ce,{legend:"Knowledge bases",name:"mountedKnowledgeBaseIds",options:se.knowledgeBases.edges.map(({node:N})=>({value:N.id,label:N.label})),selected:y,onChange:L,errors:z.errors}),e(ce,{legend:"Tools",name:"activatedToolIds",options:se.visibleTools.edges.map(({node:N})=>({value:N.id,label:`${N.name} — ${N.label}`})),selected:D,onChange:W,errors:z.errors}),e(Z,{label:"Skills",name:"boundSkillIds",value:$,onInput:J,errors:z.errors,rows:3,mono:!0,hint:`One skill id a line; pin a version with @, e.g. sk_email_draft@1.2.0. Visible here: ${se.skills.edges.map(({node:N})=>N.id).join(", ")||"none"}.`})]}),e(V,{errors:z.errors,fields:["spaceId","name","model","systemPrompt","maxSteps","outputFormat","mountedKnowledgeBaseIds","activatedToolIds","boundSkillIds"]}),E.length>0&&e(Ce,{children:e("ul",{class:"plain",children:E.map(N=>e("li",{children:N},N))})}),e("div",{class:"buttons",children:[e("button",{type:"submit",class:"primary",disabled:z.busy,children:t?"Save manifest":"Create agent"}),t?e("button",{type:"button",onClick:r,children:"Cancel"}):e(C,{class:"button",to:"/agents",children:"Cancel"})]})]});return t?pe:e(v,{children:[e(M,{title:"Create agent"}),pe]})}function Hr({agentId:t}){const{api:n}=A(),[r,s]=h(""),[o,l]=h(null),[a,c]=h(null),u=async m=>{m.preventDefault(),c(null);try{l((await n.request(Vn,{agentId:t,message:r||"(preview)"})).previewPrompt)}catch(p){c(ee(p))}},i=o?Math.min(100,Math.round(o.charCount/Math.max(1,o.budgetChars)*100)):0;return e("section",{"aria-labelledby":"preview-title",children:[e("h2",{id:"preview-title",children:"Prompt preview"}),e("form",{class:"filters",onSubmit:u,"aria-label":"Preview the prompt",children:[e(w,{label:"Message to assemble for",name:"previewMessage",value:r,onInput:s}),e("button",{type:"submit",children:"Preview prompt"})]}),a&&e("p",{role:"alert",children:a}),o&&e("div",{children:[e("p",{children:[o.charCount.toLocaleString()," of ",o.budgetChars.toLocaleString()," characters (",i,"% of the budget), about"," ",o.tokenEstimate.toLocaleString()," tokens."]}),e("meter",{min:0,max:o.budgetChars,value:o.charCount,"aria-label":"Prompt budget used"}),o.warnings.map(m=>e("p",{class:"error-text",children:m},m)),e("ol",{class:"sections",children:o.sections.map((m,p)=>e("li",{class:"card",children:[e("p",{children:[e(T,{children:m.kind})," ",m.source&&e("code",{children:m.source})," ",m.truncated&&e(T,{tone:"bad",children:"cut to fit"})]}),m.reason&&e("p",{class:"muted",children:m.reason}),e("pre",{class:"json",children:m.text})]},p))})]})]})}function jr({agentId:t,onFinished:n}){const{api:r}=A(),[s,o]=h(""),[l,a]=h([]),[c,u]=h(null),[i,m]=h(""),p=K(),d=Oe(null);return F(()=>()=>d.current?.(),[]),e("section",{"aria-labelledby":"invoke-title",children:[e("h2",{id:"invoke-title",children:"Run the agent"}),e("form",{class:"card form",onSubmit:async g=>{g.preventDefault(),d.current?.(),a([]),m(""),u(null);const I=(await p.run(async()=>(await r.request(Fn,{input:{agentId:t,message:s,async:!0}})).invokeAgent))?.run;I&&(u(I),d.current=r.subscribe(Hn,{runId:I.id},{next:_=>{const b=_.agentRunEvents;a(y=>[...y,b]),b.delta&&m(y=>y+b.delta),b.kind==="FINISHED"&&(r.request(jn,{id:I.id}).then(y=>y.agentRun&&u(y.agentRun),()=>{}),n())},error:_=>p.setErrors([{field:null,code:"STREAM",message:_.message}])}))},children:[e(Z,{label:"Message",name:"message",value:s,onInput:o,errors:p.errors,rows:3}),e(V,{errors:p.errors,fields:["message"]}),e("button",{type:"submit",class:"primary",disabled:p.busy,children:"Run agent"})]}),c&&e("div",{class:"card",children:[e("p",{children:["Run ",e("code",{children:c.id})," ",e(T,{tone:G(c.status),children:c.status})]}),e("ol",{class:"events","aria-label":"Run events","aria-live":"polite",children:l.map((g,S)=>e("li",{children:[e(T,{children:g.kind})," ",e("span",{class:"muted",children:H(g.at)}),g.step!==null&&g.step!==void 0&&e(v,{children:[" step ",g.step]}),g.toolId&&e(v,{children:[" ","tool ",e("code",{children:g.toolId})]}),g.toolCall&&e(v,{children:[" ",e(T,{tone:G(g.toolCall.status),children:g.toolCall.status})," ",de(g.toolCall.latencyMs)]}),g.kind==="FINISHED"&&g.run.error&&e(v,{children:[" ",g.run.error.message]})]},S))}),(c.output||i)&&e(v,{children:[e("h3",{children:"Answer"}),e("p",{class:"prose answer",children:c.output??i})]}),c.error&&e("p",{class:"error-text",children:c.error.message})]})]})}function Gr({agent:t}){const n=t.runs.edges.map(({node:r})=>r);return e("section",{"aria-labelledby":"runs-title",children:[e("h2",{id:"runs-title",children:["Run history (",t.runs.totalCount,")"]}),n.length===0&&e("p",{class:"empty",children:"No run yet."}),n.map(r=>e("details",{class:"card run",children:[e("summary",{children:[e(T,{tone:G(r.status),children:r.status})," ",H(r.startedAt)," — ",r.input.slice(0,80)]}),e("dl",{class:"facts",children:[e("dt",{children:"Run"}),e("dd",{children:e("code",{children:r.id})}),e("dt",{children:"Steps"}),e("dd",{children:r.steps}),e("dt",{children:"Tokens"}),e("dd",{children:[r.promptTokens??"—"," in, ",r.completionTokens??"—"," out"]}),e("dt",{children:"Answer"}),e("dd",{class:"prose",children:r.output??r.error?.message??"—"})]}),e("table",{class:"compact",children:[e("caption",{children:"Tool calls"}),e("thead",{children:e("tr",{children:[e("th",{scope:"col",children:"Tool"}),e("th",{scope:"col",children:"Status"}),e("th",{scope:"col",children:"Latency"}),e("th",{scope:"col",children:"Arguments"})]})}),e("tbody",{children:r.toolCalls.map(s=>e("tr",{children:[e("td",{children:e("code",{children:s.toolId})}),e("td",{children:[e(T,{tone:G(s.status),children:s.status})," ",s.error?.code]}),e("td",{children:de(s.latencyMs)}),e("td",{children:e(fe,{label:`Arguments of ${s.id}`,value:s.arguments})})]},s.id))})]})]},r.id))]})}const Rt=50;function Wr(t){return t==="ACTIVE"?"good":"bad"}function zr(){const{api:t,can:n,viewer:r}=A(),[s,o]=h("ACTIVE"),[l,a]=h(!1),[c,u]=h(null),i=ue(s),m=j(()=>t.request(Gn,{first:Rt,after:i.after,state:s||null}),[s,i.after]),p=m.data?.apiKeys;return e(v,{children:[e(M,{title:"API keys",children:n.manageSome&&!l&&e("button",{type:"button",class:"primary",onClick:()=>a(!0),children:"Create API key"})}),e("dl",{class:"facts",children:[e("dt",{children:"Signed in with"}),e("dd",{children:[e("code",{children:r.keyId})," ",r.keyLabel?`“${r.keyLabel}”`:""," (",r.role,")"]})]}),!n.manageSome&&e("p",{children:"Only ADMIN and SPACE_ADMIN keys manage keys; ask one of them for another key."}),l&&e(Qr,{onDone:d=>{a(!1),d&&(u(d),m.reload())}}),c&&e("div",{class:"notice secret",role:"status",children:[e("p",{children:["Key ",e("code",{children:c.id})," created. Copy its secret now: it is shown only this once and is not stored."]}),e("label",{for:"new-secret",children:"Secret"}),e("input",{id:"new-secret",readOnly:!0,value:c.secret,onFocus:d=>d.currentTarget.select()}),e("div",{class:"buttons",children:[e("button",{type:"button",onClick:()=>{navigator.clipboard?.writeText(c.secret)},children:"Copy secret"}),e("button",{type:"button",onClick:()=>u(null),children:"Done"})]})]}),n.manageSome&&e(v,{children:[e("form",{class:"filters","aria-label":"Filter keys",onSubmit:d=>d.preventDefault(),children:e(q,{label:"State",name:"state",value:s,onChange:o,options:[["","Any state"],["ACTIVE","Active"],["EXPIRED","Expired"],["REVOKED","Revoked"]]})}),e(Q,{error:m.error,retry:m.reload}),p&&e(v,{children:[e("table",{children:[e("caption",{class:"sr-only",children:"API keys"}),e("thead",{children:e("tr",{children:[e("th",{scope:"col",children:"Label"}),e("th",{scope:"col",children:"Id"}),e("th",{scope:"col",children:"Role"}),e("th",{scope:"col",children:"Space"}),e("th",{scope:"col",children:"Created"}),e("th",{scope:"col",children:"Expires"}),e("th",{scope:"col",children:"Last used"}),e("th",{scope:"col",children:"State"}),e("th",{scope:"col",children:"Action"})]})}),e("tbody",{children:p.edges.map(({node:d})=>e(Jr,{apiKey:d,isCurrent:d.id===r.keyId,onChanged:m.reload},d.id))})]}),p.edges.length===0&&e("p",{class:"empty",children:"No key in this state."}),e(he,{label:"API keys",page:i.page,pageSize:Rt,shown:p.edges.length,total:p.totalCount,hasNext:p.pageInfo.hasNextPage,onNext:()=>i.next(p.pageInfo.endCursor),onPrevious:i.previous})]})]})]})}function Jr({apiKey:t,isCurrent:n,onChanged:r}){const{api:s}=A(),[o,l]=h(!1),a=K(),c=t.label??t.id,u=async()=>{const i=await a.run(async()=>(await s.request(zn,{input:{id:t.id}})).revokeApiKey);l(!1),i&&r()};return e("tr",{children:[e("td",{children:[t.label??"—"," ",n&&e(T,{tone:"busy",children:"in use here"})]}),e("td",{children:e("code",{children:t.id})}),e("td",{children:t.role}),e("td",{children:t.space?.name??"every space"}),e("td",{children:H(t.createdAt)}),e("td",{children:H(t.expiresAt)}),e("td",{children:H(t.lastUsedAt)}),e("td",{children:e(T,{tone:Wr(t.state),children:t.state})}),e("td",{children:[t.state==="ACTIVE"&&(o?e("div",{class:"buttons",children:[e("span",{children:[n?"This signs the console out. ":"","Revoke?"]}),e("button",{type:"button",class:"danger",onClick:u,disabled:a.busy,children:["Confirm revoke ",c]}),e("button",{type:"button",onClick:()=>l(!1),children:"Keep"})]}):e("button",{type:"button",onClick:()=>l(!0),"aria-label":`Revoke ${c}`,children:"Revoke"})),e(V,{errors:a.errors,fields:[]})]})]})}function Qr({onDone:t}){const{api:n,can:r,viewer:s}=A(),o=Y(),l=r.admin?["ADMIN","SPACE_ADMIN","MEMBER","VIEWER"]:["SPACE_ADMIN","MEMBER","VIEWER"],[a,c]=h("MEMBER"),[u,i]=h(s.space?.id??""),[m,p]=h(""),[d,f]=h(""),g=K(),S=o.data?.[0]?.id??"";return e("form",{class:"card form",onSubmit:async _=>{_.preventDefault();const b=await g.run(async()=>(await n.request(Wn,{input:{role:a,spaceId:a==="ADMIN"?null:u||S||null,label:m||null,expiresAt:d?new Date(d).toISOString():null}})).createApiKey);b?.apiKey&&b.secret&&t({id:b.apiKey.id,secret:b.secret})},"aria-label":"Create API key",children:[e(q,{label:"Role",name:"role",value:a,onChange:c,errors:g.errors,options:l.map(_=>[_,_])}),r.admin&&a!=="ADMIN"&&e(q,{label:"Space",name:"spaceId",value:u,onChange:i,errors:g.errors,options:(o.data??[]).map(_=>[_.id,_.label])}),e(w,{label:"Label",name:"label",value:m,onInput:p,errors:g.errors,hint:"A note to recognise the key by."}),e(w,{label:"Expires",name:"expiresAt",value:d,onInput:f,errors:g.errors,type:"datetime-local",hint:"Your local time; empty: never."}),e(V,{errors:g.errors,fields:["role","spaceId","label","expiresAt"]}),e("div",{class:"buttons",children:[e("button",{type:"submit",class:"primary",disabled:g.busy,children:"Create key"}),e("button",{type:"button",onClick:()=>t(null),children:"Cancel"})]})]})}const Nt=50,et=[".md",".markdown",".txt",".html",".htm"];function Yr({sub:t}){return t==="new"?e(Xr,{}):t?e(es,{id:decodeURIComponent(t)}):e(Zr,{})}function Zr(){const{api:t,can:n}=A(),r=ue("kbs"),s=j(()=>t.request(Zt,{first:Nt,after:r.after}),[r.after]),o=s.data?.knowledgeBases;return e(v,{children:[e(M,{title:"Knowledge",children:n.manageSome&&e(C,{class:"button primary",to:"/knowledge/new",children:"Create knowledge base"})}),e(Q,{error:s.error,retry:s.reload}),o&&e(v,{children:[e("table",{children:[e("caption",{children:"Knowledge bases"}),e("thead",{children:e("tr",{children:[e("th",{scope:"col",children:"Label"}),e("th",{scope:"col",children:"Name"}),e("th",{scope:"col",children:"Space"}),e("th",{scope:"col",children:"Documents"}),e("th",{scope:"col",children:"Created"})]})}),e("tbody",{children:o.edges.map(({node:l})=>e("tr",{children:[e("td",{children:e(C,{to:`/knowledge/${encodeURIComponent(l.id)}`,children:l.label})}),e("td",{children:e("code",{children:l.name})}),e("td",{children:l.space.name}),e("td",{children:l.documentCount}),e("td",{children:H(l.createdAt)})]},l.id))})]}),o.edges.length===0&&e("p",{class:"empty",children:"No knowledge base yet."}),e(he,{label:"Knowledge bases",page:r.page,pageSize:Nt,shown:o.edges.length,total:o.totalCount,hasNext:o.pageInfo.hasNextPage,onNext:()=>r.next(o.pageInfo.endCursor),onPrevious:r.previous}),e(ln,{bases:o.edges.map(({node:l})=>({id:l.id,label:l.label,spaceId:l.space.id}))})]})]})}function Xr(){const{api:t,can:n,viewer:r}=A(),s=Y(),[o,l]=h(r.space?.id??""),[a,c]=h(""),[u,i]=h(""),[m,p]=h(""),d=K();return n.manageSome?e(v,{children:[e(M,{title:"Create knowledge base"}),e("form",{class:"card form",onSubmit:async g=>{g.preventDefault();const S=await d.run(async()=>(await t.request(Yn,{input:{spaceId:o||s.data?.[0]?.id||"",name:a,label:u,description:m||null}})).createKnowledgeBase);S?.knowledgeBase&&re(X(`/knowledge/${encodeURIComponent(S.knowledgeBase.id)}`))},children:[n.admin&&e(q,{label:"Space",name:"spaceId",value:o,onChange:l,errors:d.errors,options:(s.data??[]).map(g=>[g.id,g.label])}),e(w,{label:"Name",name:"name",value:a,onInput:c,errors:d.errors,hint:"Unique in the space: ^[a-zA-Z0-9_-]{1,64}$."}),e(w,{label:"Label",name:"label",value:u,onInput:i,errors:d.errors}),e(Z,{label:"Description",name:"description",value:m,onInput:p,errors:d.errors,rows:2}),e(V,{errors:d.errors,fields:["spaceId","name","label","description"]}),e("div",{class:"buttons",children:[e("button",{type:"submit",class:"primary",disabled:d.busy,children:"Create knowledge base"}),e(C,{class:"button",to:"/knowledge",children:"Cancel"})]})]})]}):e("p",{children:"This key cannot create knowledge bases."})}function es({id:t}){const{api:n,can:r}=A(),s=j(()=>n.request(Qn,{id:t}),[t]),o=j(()=>n.request(Zt,{first:100,after:null}),[]),l=o.data?.knowledgeBases.edges.map(({node:u})=>u).find(u=>u.id===t),a=s.data?.node,c=a&&"documents"in a?a.documents:null;return e(v,{children:[e(M,{title:l?`Knowledge base ${l.label}`:"Knowledge base",children:e(C,{class:"button",to:"/knowledge",children:"All knowledge bases"})}),e(Q,{error:s.error??o.error,retry:s.reload}),l&&e("dl",{class:"facts",children:[e("dt",{children:"Name"}),e("dd",{children:e("code",{children:l.name})}),e("dt",{children:"Space"}),e("dd",{children:l.space.name}),e("dt",{children:"Description"}),e("dd",{children:l.description??"—"})]}),l&&r.manage(l.space.id)&&e(ns,{knowledgeBaseId:t,onAdded:s.reload}),c&&e("table",{children:[e("caption",{children:["Documents (",c.totalCount,")"]}),e("thead",{children:e("tr",{children:[e("th",{scope:"col",children:"Title"}),e("th",{scope:"col",children:"Source"}),e("th",{scope:"col",children:"Chunks"}),e("th",{scope:"col",children:"Added"})]})}),e("tbody",{children:c.edges.map(({node:u})=>e("tr",{children:[e("td",{children:u.title}),e("td",{children:u.source??"—"}),e("td",{children:u.chunkCount}),e("td",{children:H(u.createdAt)})]},u.id))})]}),l&&e(ln,{bases:[{id:l.id,label:l.label,spaceId:l.space.id}]})]})}async function ts(t){const n=t.name.toLowerCase();if(!et.some(l=>n.endsWith(l)))throw new Error(`${t.name}: only ${et.join(" ")} files are read here (PDF: quiver kb ingest).`);const r=await t.text(),s=t.name.replace(/\.[^.]+$/,"");if(n.endsWith(".html")||n.endsWith(".htm")){const l=new DOMParser().parseFromString(r,"text/html"),a=[];return l.body.querySelectorAll("h1,h2,h3,h4,h5,h6,p,li,pre,td").forEach(c=>{const u=c.textContent?.trim();if(!u)return;const i=/^H([1-6])$/.exec(c.tagName)?.[1];a.push(i?`${"#".repeat(Number(i))} ${u}`:u)}),{title:l.title.trim()||s,text:a.join(`

`)}}return{title:/^ {0,3}#[ \t]+(.+?)[ \t]*#*[ \t]*$/m.exec(r)?.[1]?.trim()||s,text:r}}function ns({knowledgeBaseId:t,onAdded:n}){const{api:r}=A(),[s,o]=h([]),[l,a]=h(!1),c=async u=>{if(!u?.length)return;a(!0);const i=[];for(const m of Array.from(u))try{const{title:p,text:d}=await ts(m),f=(await r.request(Zn,{input:{knowledgeBaseId:t,title:p,text:d,source:m.name}})).addDocument;i.push(f.userErrors.length?`${m.name}: ${f.userErrors.map(g=>g.message).join(" ")}`:`${m.name}: ${f.outcome?.toLowerCase()}, ${f.document?.chunkCount} chunks`)}catch(p){i.push(ee(p))}o(i),a(!1),n()};return e("section",{"aria-labelledby":"upload-title",class:"card",children:[e("h2",{id:"upload-title",children:"Upload files"}),e("div",{class:"field",children:[e("label",{for:"upload-files",children:"Files (.md, .txt, .html)"}),e("input",{id:"upload-files",type:"file",multiple:!0,accept:et.join(","),disabled:l,onChange:u=>c(u.currentTarget.files)}),e("p",{class:"hint",children:"The same file name again replaces that document."})]}),s.length>0&&e(Ce,{children:e("ul",{class:"plain",children:s.map(u=>e("li",{children:u},u))})})]})}function ln({bases:t}){const{api:n,viewer:r}=A(),s=Y(),[o,l]=h(r.space?.id??t[0]?.spaceId??""),[a,c]=h(""),[u,i]=h("5"),[m,p]=h([]),[d,f]=h(null),[g,S]=h(null),I=t.filter(b=>b.spaceId===o);return e("section",{"aria-labelledby":"search-title",children:[e("h2",{id:"search-title",children:"Search playground"}),e("form",{class:"card form",onSubmit:async b=>{b.preventDefault(),S(null);try{const y=await n.request(Xn,{spaceId:o,query:a,topK:Number(u)||5,knowledgeBaseIds:m.length?m.filter(L=>I.some(D=>D.id===L)):null});f(y.searchKnowledge)}catch(y){S(ee(y))}},role:"search","aria-label":"Search knowledge",children:[!r.space&&e(q,{label:"Space",name:"spaceId",value:o,onChange:l,options:(s.data??[]).map(b=>[b.id,b.label])}),e(w,{label:"Query",name:"query",value:a,onInput:c}),e(w,{label:"Results",name:"topK",value:u,onInput:i,type:"number"}),I.length>1&&e(ce,{legend:"Only these knowledge bases",name:"knowledgeBaseIds",options:I.map(b=>({value:b.id,label:b.label})),selected:m,onChange:p}),e("div",{class:"buttons",children:e("button",{type:"submit",children:"Search"})})]}),g&&e("p",{class:"form-errors",role:"alert",children:g}),d&&e("ol",{class:"hits","aria-label":"Search results",children:[d.length===0&&e("li",{children:"No passage matches."}),d.map(b=>e("li",{class:"card",children:[e("p",{class:"hit-meta",children:[e("span",{class:"score",children:["score ",b.score.toFixed(4)]})," · ",e("strong",{children:b.document.title}),b.headingPath.length>0&&e(v,{children:[" › ",b.headingPath.join(" › ")]})]}),e("blockquote",{children:b.text}),e("p",{class:"citation",children:["Cite: ",b.document.title,b.source?`, ${b.source}`:"",", passage ",b.chunkIndex+1]})]},`${b.document.id}-${b.chunkIndex}`))]})]})}const We=500;function rs(){const{api:t}=A(),n=Y(),[r,s]=h(""),[o,l]=h(""),[a,c]=h(""),[u,i]=h([]),[m,p]=h([]),[d,f]=h(!1),[g,S]=h(null),[I,_]=h("connecting"),[b,y]=h(null),L=Oe(d);L.current=d;const D=o.trim();return F(()=>t.onSocketState(_),[t]),F(()=>{y(null);const $={spaceId:r||null,toolId:D||null,status:a||null};return t.subscribe(Jn,{filter:$},{next:E=>{const P=E.toolCalls;L.current?p(O=>[P,...O].slice(0,We)):i(O=>[P,...O].slice(0,We))},error:E=>y(E.message)})},[t,r,D,a]),e(v,{children:[e(M,{title:"Live calls",children:[d?e("button",{type:"button",onClick:()=>{i($=>[...m,...$].slice(0,We)),p([]),f(!1)},children:["Resume (",m.length," waiting)"]}):e("button",{type:"button",onClick:()=>f(!0),children:"Pause"}),e("button",{type:"button",onClick:()=>i([]),children:"Clear"})]}),e("p",{class:"muted",role:"status",children:[I==="connected"?"Listening: every finished call appears here as it happens.":I==="connecting"?"Connecting…":"Disconnected.",d&&" Paused: new calls wait until you resume."]}),b&&e("p",{class:"form-errors",role:"alert",children:b}),e("form",{class:"filters","aria-label":"Filter live calls",onSubmit:$=>$.preventDefault(),children:[e(q,{label:"Space",name:"spaceId",value:r,onChange:s,options:[["","Every space"],...(n.data??[]).map($=>[$.id,$.label])]}),e(w,{label:"Tool id",name:"toolId",value:o,onInput:l,placeholder:"e.g. bt_calculator"}),e(q,{label:"Status",name:"status",value:a,onChange:c,options:[["","Any status"],["SUCCESS","Success"],["FAILED","Failed"]]})]}),e("table",{class:"live",children:[e("caption",{class:"sr-only",children:"Live tool calls, newest first"}),e("thead",{children:e("tr",{children:[e("th",{scope:"col",children:"Started"}),e("th",{scope:"col",children:"Tool"}),e("th",{scope:"col",children:"Space"}),e("th",{scope:"col",children:"Status"}),e("th",{scope:"col",children:"Latency"}),e("th",{scope:"col",children:"Caller"}),e("th",{scope:"col",children:"Call"})]})}),e("tbody",{children:u.map($=>e("tr",{class:g?.id===$.id?"selected":void 0,children:[e("td",{children:H($.startedAt)}),e("td",{children:e("code",{children:$.toolId})}),e("td",{children:$.space.name}),e("td",{children:[e(T,{tone:G($.status),children:$.status})," ",$.error?.code]}),e("td",{children:de($.latencyMs)}),e("td",{children:$.agent?`agent ${$.agent.name}`:"direct"}),e("td",{children:e("button",{type:"button",onClick:()=>S($),"aria-label":`Open call ${$.id}`,children:"Open"})})]},$.id))})]}),u.length===0&&e("p",{class:"empty",children:"No call yet. Calls made anywhere — the API, agents, other consoles — show up here."}),g&&e(ss,{call:g,onClose:()=>S(null)})]})}function ss({call:t,onClose:n}){const r=Oe(null);return F(()=>r.current?.focus(),[t.id]),e("section",{class:"card call-detail","aria-labelledby":"call-title",children:[e("h2",{id:"call-title",tabIndex:-1,ref:r,children:["Call ",t.id]}),e("dl",{class:"facts",children:[e("dt",{children:"Tool"}),e("dd",{children:e(C,{to:`/tools/${encodeURIComponent(t.toolId)}`,children:t.toolId})}),e("dt",{children:"Status"}),e("dd",{children:e(T,{tone:G(t.status),children:t.status})}),e("dt",{children:"Space"}),e("dd",{children:t.space.name}),e("dt",{children:"Started"}),e("dd",{children:H(t.startedAt)}),e("dt",{children:"Latency"}),e("dd",{children:[de(t.latencyMs),", ",t.attempts," attempt",t.attempts===1?"":"s"]}),e("dt",{children:"Trace id"}),e("dd",{children:e("code",{children:t.traceId})}),e("dt",{children:"Idempotency key"}),e("dd",{children:t.idempotencyKey??"—"}),e("dt",{children:"Caller"}),e("dd",{children:t.agent?e(v,{children:["agent ",e(C,{to:`/agents/${encodeURIComponent(t.agent.id)}`,children:t.agent.name}),t.run&&e(v,{children:[", run ",e("code",{children:t.run.id})]})]}):"a direct call"})]}),e("h3",{children:"Arguments"}),e(fe,{label:"Arguments",value:t.arguments}),t.error?e(v,{children:[e("h3",{children:"Error"}),e("p",{children:[e("code",{children:t.error.code})," ",t.error.message]}),t.error.detail&&e("pre",{class:"json",children:t.error.detail})]}):e(v,{children:[e("h3",{children:"Result"}),e(fe,{label:"Result",value:t.result})]}),e("button",{type:"button",onClick:n,children:"Close call"})]})}const ze=20;function ls(){const{api:t,can:n}=A(),r=ue("mcp"),s=j(()=>t.request(er,{first:ze,after:r.after}),[r.after]),[o,l]=h(!1),a=s.data?.mcpServers;return e(v,{children:[e(M,{title:"MCP servers",children:n.admin&&!o&&e("button",{type:"button",class:"primary",onClick:()=>l(!0),children:"Register MCP server"})}),o&&e(is,{onDone:c=>{l(!1),c&&s.reload()}}),e(Q,{error:s.error,retry:s.reload}),a&&a.edges.length===0&&e("p",{class:"empty",children:"No MCP server is registered."}),a?.edges.map(({node:c})=>e(os,{server:c,onChanged:s.reload},c.id)),a&&a.totalCount>ze&&e(he,{label:"MCP servers",page:r.page,pageSize:ze,shown:a.edges.length,total:a.totalCount,hasNext:a.pageInfo.hasNextPage,onNext:()=>r.next(a.pageInfo.endCursor),onPrevious:r.previous})]})}function os({server:t,onChanged:n}){const{api:r,can:s}=A(),o=K(),l=K(),[a,c]=h(null),u=t.tools.edges.filter(({node:d})=>d.driftedAt),i=async()=>{c(null);const d=await o.run(async()=>(await r.request(nr,{id:t.id})).syncMcpServer);d?.syncReport&&c(d.syncReport),n()},m=async(d,f)=>{await l.run(async()=>(await r.request(ot,{input:{id:d,status:f}})).setStatus)&&n()},p=`server-${t.id}`;return e("section",{class:"card","aria-labelledby":p,children:[e("h2",{id:p,children:[t.name," ",e(T,{tone:G(t.status),children:t.status})," ",e(T,{children:t.transport}),u.length>0&&e(T,{tone:"bad",children:[u.length," drifted"]})]}),e("dl",{class:"facts",children:[e("dt",{children:"Id"}),e("dd",{children:e("code",{children:t.id})}),e("dt",{children:t.url?"URL":"Command"}),e("dd",{children:e("code",{children:t.url??t.command?.join(" ")})}),e("dt",{children:"Visible in"}),e("dd",{children:t.isGlobal?"every space (global)":t.boundSpaces.map(d=>d.name).join(", ")}),e("dt",{children:"Last sync"}),e("dd",{children:H(t.lastSyncedAt)}),t.lastError&&e(v,{children:[e("dt",{children:"Last error"}),e("dd",{class:"error-text",children:t.lastError})]})]}),s.admin&&e("div",{class:"buttons",children:[e("button",{type:"button",onClick:i,disabled:o.busy,children:o.busy?"Syncing…":`Sync ${t.name}`}),t.status==="ACTIVE"?e("button",{type:"button",onClick:()=>m(t.id,"DISABLED"),disabled:l.busy,children:"Disable server"}):e("button",{type:"button",onClick:()=>m(t.id,"ACTIVE"),disabled:l.busy,children:"Re-activate server"})]}),e(V,{errors:[...o.errors,...l.errors],fields:[]}),a&&e(as,{report:a}),e("h3",{children:["Tools (",t.tools.totalCount,")"]}),e("table",{class:"compact",children:[e("caption",{class:"sr-only",children:["Tools of ",t.name]}),e("thead",{children:e("tr",{children:[e("th",{scope:"col",children:"Tool"}),e("th",{scope:"col",children:"Status"}),e("th",{scope:"col",children:"Drift"}),s.admin&&e("th",{scope:"col",children:"Action"})]})}),e("tbody",{children:t.tools.edges.map(({node:d})=>e("tr",{children:[e("td",{children:e(C,{to:`/tools/${encodeURIComponent(d.id)}`,children:d.name})}),e("td",{children:e(T,{tone:G(d.status),children:d.status})}),e("td",{children:d.driftedAt?e(T,{tone:"bad",children:["drifted ",H(d.driftedAt)]}):"—"}),s.admin&&e("td",{children:d.status!=="ACTIVE"&&e("button",{type:"button",onClick:()=>m(d.id,"ACTIVE"),disabled:l.busy,"aria-label":`Re-activate ${d.name}`,children:"Re-activate"})})]},d.id))})]})]})}function as({report:t}){const n=[["Added",t.added],["Changed",t.updated],["Disabled",t.disabled],["Drifted",t.drifted],["Re-activated",t.reactivated],["Vanished",t.vanished],["Skipped",t.skipped]];return e("div",{class:"result",role:"status","aria-label":"Sync result",children:[e("p",{children:["Synced: ",t.added.length," added, ",t.updated.length," changed, ",t.disabled.length," disabled,"," ",t.unchanged.length," unchanged (",t.pages," page",t.pages===1?"":"s",")."]}),e("dl",{class:"facts",children:n.filter(([,r])=>r.length).map(([r,s])=>e(v,{children:[e("dt",{children:r},`${r}-t`),e("dd",{children:s.join(", ")},`${r}-d`)]}))})]})}function is({onDone:t}){const{api:n}=A(),r=Y(),[s,o]=h(""),[l,a]=h("STREAMABLE_HTTP"),[c,u]=h(""),[i,m]=h(""),[p,d]=h("NONE"),[f,g]=h(""),[S,I]=h(""),[_,b]=h([]),y=K();return e("form",{class:"card form",onSubmit:async D=>{D.preventDefault(),await y.run(async()=>(await n.request(tr,{input:{name:s,transport:l,url:l==="STDIO"?null:c,command:l==="STDIO"?i.split(/\s+/).filter(Boolean):null,auth:p==="NONE"?null:{type:p,headerName:f||null,secret:S||null},spaceIds:_.length?_:null}})).registerMcpServer)&&t(!0)},"aria-label":"Register MCP server",children:[e(w,{label:"Name",name:"name",value:s,onInput:o,errors:y.errors,hint:"^[a-zA-Z0-9_-]{1,64}$; tools are named {serverId}__{tool}."}),e(q,{label:"Transport",name:"transport",value:l,onChange:a,errors:y.errors,options:[["STREAMABLE_HTTP","Streamable HTTP"],["SSE","HTTP + SSE (older)"],["STDIO","Local process (stdio)"]]}),l==="STDIO"?e(w,{label:"Command",name:"command",value:i,onInput:m,errors:y.errors,hint:"The program and its arguments, separated by spaces."}):e(w,{label:"URL",name:"url",value:c,onInput:u,errors:y.errors,type:"url"}),e(q,{label:"Authentication",name:"auth.type",value:p,onChange:d,errors:y.errors,options:[["NONE","None"],["BEARER","Bearer token"],["API_KEY","API key header"],["HEADER","Custom header"]]}),(p==="API_KEY"||p==="HEADER")&&e(w,{label:"Header name",name:"auth.headerName",value:f,onInput:g,errors:y.errors}),p!=="NONE"&&e(w,{label:"Secret",name:"auth.secret",value:S,onInput:I,errors:y.errors,type:"password",autoComplete:"new-password",hint:"Write-only: stored encrypted, never shown again."}),e(ce,{legend:"Bind to spaces (none checked: global)",name:"spaceIds",options:(r.data??[]).map(D=>({value:D.id,label:`${D.label} (${D.name})`})),selected:_,onChange:b,errors:y.errors}),e(V,{errors:y.errors,fields:["name","transport","url","command","auth","auth.type","auth.headerName","auth.secret","spaceIds"]}),e("div",{class:"buttons",children:[e("button",{type:"submit",class:"primary",disabled:y.busy,children:"Register server"}),e("button",{type:"button",onClick:()=>t(!1),children:"Cancel"})]})]})}const cs=4e6;function ds(t,n){const r=t.split(`
`),s=n.split(`
`);if(r.length*s.length>cs)return[...r.map(u=>({kind:"removed",text:u})),...s.map(u=>({kind:"added",text:u}))];const o=Array.from({length:r.length+1},()=>new Uint32Array(s.length+1));for(let u=r.length-1;u>=0;u-=1)for(let i=s.length-1;i>=0;i-=1)o[u][i]=r[u]===s[i]?o[u+1][i+1]+1:Math.max(o[u+1][i],o[u][i+1]);const l=[];let a=0,c=0;for(;a<r.length&&c<s.length;)r[a]===s[c]?(l.push({kind:"same",text:r[a]}),a+=1,c+=1):o[a+1][c]>=o[a][c+1]?(l.push({kind:"removed",text:r[a]}),a+=1):(l.push({kind:"added",text:s[c]}),c+=1);for(;a<r.length;a+=1)l.push({kind:"removed",text:r[a]});for(;c<s.length;c+=1)l.push({kind:"added",text:s[c]});return l}const xt=50;function us({sub:t}){return t==="new"?e(ps,{}):t==="import"?e(ms,{}):t?e(fs,{id:decodeURIComponent(t)}):e(hs,{})}function hs(){const{api:t,can:n}=A(),[r,s]=h(""),[o,l]=h(""),a=ue(o),c=j(()=>t.request(rr,{first:xt,after:a.after,filter:o?{search:o}:null}),[o,a.after]),u=c.data?.skills;return e(v,{children:[e(M,{title:"Skills",children:n.manageSome&&e(v,{children:[e(C,{class:"button primary",to:"/skills/new",children:"Create skill"}),e(C,{class:"button",to:"/skills/import",children:"Import SKILL.md"})]})}),e("form",{class:"filters",role:"search","aria-label":"Filter skills",onSubmit:i=>{i.preventDefault(),l(r.trim())},children:[e(w,{label:"Search",name:"search",value:r,onInput:s}),e("button",{type:"submit",children:"Filter"})]}),e(Q,{error:c.error,retry:c.reload}),u&&e(v,{children:[e("table",{children:[e("caption",{class:"sr-only",children:"Skills"}),e("thead",{children:e("tr",{children:[e("th",{scope:"col",children:"Name"}),e("th",{scope:"col",children:"Label"}),e("th",{scope:"col",children:"Scope"}),e("th",{scope:"col",children:"Production"}),e("th",{scope:"col",children:"Candidate"}),e("th",{scope:"col",children:"Status"})]})}),e("tbody",{children:u.edges.map(({node:i})=>e("tr",{children:[e("td",{children:e(C,{to:`/skills/${encodeURIComponent(i.id)}`,children:i.name})}),e("td",{children:i.label}),e("td",{children:i.space?i.space.name:"global"}),e("td",{children:i.version}),e("td",{children:i.candidateVersion?`${i.candidateVersion} (${i.canaryPercent}% of sessions)`:"—"}),e("td",{children:e(T,{tone:G(i.status),children:i.status})})]},i.id))})]}),e(he,{label:"Skills",page:a.page,pageSize:xt,shown:u.edges.length,total:u.totalCount,hasNext:u.pageInfo.hasNextPage,onNext:()=>a.next(u.pageInfo.endCursor),onPrevious:a.previous})]}),e(Ss,{})]})}function on({value:t,onChange:n,allowGlobal:r,errors:s}){const o=Y(),l=[...r?[["","Global (every space)"]]:[],...(o.data??[]).map(a=>[a.id,a.label])];return e(q,{label:"Space",name:"spaceId",value:t,onChange:n,options:l,errors:s})}function ps(){const{api:t,can:n,viewer:r}=A(),[s,o]=h(r.space?.id??""),[l,a]=h(""),[c,u]=h(""),[i,m]=h(""),[p,d]=h(""),[f,g]=h(""),[S,I]=h(""),_=K();return n.manageSome?e(v,{children:[e(M,{title:"Create skill"}),e("form",{class:"card form wide",onSubmit:async y=>{y.preventDefault();const L=await _.run(async()=>(await t.request(or,{input:{spaceId:s||null,name:l,label:c,description:i,prompt:p,triggerHints:f.split(",").map(D=>D.trim()).filter(Boolean),boundary:S||null}})).createSkill);L?.skill&&re(X(`/skills/${encodeURIComponent(L.skill.id)}`))},children:[n.admin&&e(on,{value:s,onChange:o,allowGlobal:!0,errors:_.errors}),e(w,{label:"Name",name:"name",value:l,onInput:a,errors:_.errors,hint:"1-64 of a-z, 0-9 and single hyphens."}),e(w,{label:"Label",name:"label",value:c,onInput:u,errors:_.errors}),e(w,{label:"Description",name:"description",value:i,onInput:m,errors:_.errors}),e(Z,{label:"Prompt",name:"prompt",value:p,onInput:d,errors:_.errors,rows:10,mono:!0,hint:"Markdown methodology; becomes version 1.0.0 in PRODUCTION."}),e(w,{label:"Trigger hints",name:"triggerHints",value:f,onInput:g,errors:_.errors,hint:"Comma-separated phrases that signal the skill applies."}),e(w,{label:"Boundary",name:"boundary",value:S,onInput:I,errors:_.errors,hint:"What the skill must not be used for."}),e(V,{errors:_.errors,fields:["spaceId","name","label","description","prompt","triggerHints","boundary"]}),e("div",{class:"buttons",children:[e("button",{type:"submit",class:"primary",disabled:_.busy,children:"Create skill"}),e(C,{class:"button",to:"/skills",children:"Cancel"})]})]})]}):e("p",{children:"This key cannot create skills."})}function ms(){const{api:t,can:n,viewer:r}=A(),[s,o]=h(r.space?.id??""),[l,a]=h(""),[c,u]=h(!1),i=K();return n.manageSome?e(v,{children:[e(M,{title:"Import SKILL.md"}),e("form",{class:"card form wide",onSubmit:async p=>{p.preventDefault();const d=await i.run(async()=>(await t.request(ur,{input:{spaceId:s||null,text:l,replaceExisting:c}})).importSkill);d?.skill&&re(X(`/skills/${encodeURIComponent(d.skill.id)}`))},children:[n.admin&&e(on,{value:s,onChange:o,allowGlobal:!0,errors:i.errors}),e("div",{class:"field",children:[e("label",{for:"skill-file",children:"SKILL.md file"}),e("input",{id:"skill-file",type:"file",accept:".md,text/markdown",onChange:async p=>a(await p.currentTarget.files?.[0]?.text()??l)})]}),e(Z,{label:"SKILL.md text",name:"text",value:l,onInput:a,errors:i.errors,rows:14,mono:!0,hint:"YAML front matter (name, description, metadata) then the Markdown prompt."}),e("label",{class:"check",children:[e("input",{type:"checkbox",checked:c,onChange:p=>u(p.currentTarget.checked)})," Update the skill of that name if it exists"]}),e(V,{errors:i.errors,fields:["spaceId","text"]}),e("div",{class:"buttons",children:[e("button",{type:"submit",class:"primary",disabled:i.busy,children:"Import skill"}),e(C,{class:"button",to:"/skills",children:"Cancel"})]})]})]}):e("p",{children:"This key cannot import skills."})}function fs({id:t}){const{api:n,can:r}=A(),s=j(()=>n.request(sr,{id:t}),[t]),o=s.data?.skill;if(s.data&&!o)return e(v,{children:[e(M,{title:"Skill not found"}),e("p",{children:["No skill ",e("code",{children:t})," is visible to this key. ",e(C,{to:"/skills",children:"Back to Skills"})]})]});const l=o?r.manage(o.space?.id??null)&&(o.space!==null||r.admin):!1;return e(v,{children:[e(M,{title:o?`Skill ${o.name}`:"Skill",children:e(C,{class:"button",to:"/skills",children:"All skills"})}),e(Q,{error:s.error,retry:s.reload}),o&&e(v,{children:[e("dl",{class:"facts",children:[e("dt",{children:"Label"}),e("dd",{children:o.label}),e("dt",{children:"Scope"}),e("dd",{children:o.space?`space ${o.space.name}`:"global"}),e("dt",{children:"Status"}),e("dd",{children:e(T,{tone:G(o.status),children:o.status})}),e("dt",{children:"Production"}),e("dd",{children:[o.version," (",o.charCount," characters)"]}),e("dt",{children:"Candidate"}),e("dd",{children:o.candidateVersion?`${o.candidateVersion}, served to ${o.canaryPercent}% of sessions`:"none"}),e("dt",{children:"Description"}),e("dd",{children:o.description}),e("dt",{children:"Trigger hints"}),e("dd",{children:o.triggerHints.join(", ")||"—"}),e("dt",{children:"Boundary"}),e("dd",{children:o.boundary??"—"})]}),l&&e(gs,{skill:o,onChanged:s.reload}),e(_s,{skill:o}),e(ys,{skill:o}),e(vs,{skill:o}),l&&e(bs,{skill:o,onChanged:s.reload})]})]})}function bs({skill:t,onChanged:n}){const{api:r}=A(),s=K(),o=t.status==="ACTIVE"?"DISABLED":"ACTIVE";return e("div",{class:"buttons",children:[e("button",{type:"button",disabled:s.busy,onClick:async()=>{await s.run(async()=>(await r.request(ot,{input:{id:t.id,status:o}})).setStatus)&&n()},children:o==="ACTIVE"?"Enable skill":"Disable skill"}),e(V,{errors:s.errors,fields:[]})]})}function gs({skill:t,onChanged:n}){const{api:r}=A(),s=t.versions.find(E=>E.version===t.version),[o,l]=h(s?.prompt??""),[a,c]=h(""),[u,i]=h("10"),[m,p]=h(String(t.canaryPercent)),[d,f]=h(""),[g,S]=h(null),I=K(),_=K(),b=K(),y=K();F(()=>p(String(t.canaryPercent)),[t.canaryPercent]);const L=t.versions.filter(E=>E.version!==t.version&&E.channel!=="CANDIDATE"),D=async E=>{E.preventDefault();const P=await I.run(async()=>(await r.request(ar,{input:{skillId:t.id,prompt:o,version:a||null,canaryPercent:u===""?null:Number(u)}})).publishSkillVersion);P?.skillVersion&&(S(`Version ${P.skillVersion.version} published as the candidate.`),c(""),n())},W=async()=>{const E=await _.run(async()=>(await r.request(ir,{input:{skillId:t.id}})).promoteSkillCandidate);E?.skill&&(S(`Version ${E.skill.version} is now in production.`),n())},$=async E=>{E.preventDefault();const P=await b.run(async()=>(await r.request(cr,{input:{skillId:t.id,version:d||null}})).rollbackSkill);P?.skill&&(S(`Production rolled back to ${P.skill.version}.`),n())},J=async E=>{E.preventDefault();const P=await y.run(async()=>(await r.request(dr,{input:{skillId:t.id,canaryPercent:Number(m)}})).setSkillCanary);P?.skill&&(S(`The candidate now serves ${P.skill.canaryPercent}% of sessions.`),n())};return e("section",{"aria-labelledby":"channels-title",children:[e("h2",{id:"channels-title",children:"Channels"}),g&&e(Ce,{children:g}),e("div",{class:"columns",children:[e("form",{class:"card form",onSubmit:D,"aria-label":"Publish a candidate",children:[e("h3",{children:"Publish a candidate"}),e(Z,{label:"Candidate prompt",name:"prompt",value:o,onInput:l,errors:I.errors,rows:8,mono:!0}),e(w,{label:"Candidate version",name:"version",value:a,onInput:c,errors:I.errors,hint:"Default: the next patch version."}),e(w,{label:"Canary share (%)",name:"canaryPercent",value:u,onInput:i,errors:I.errors,type:"number"}),e(V,{errors:I.errors,fields:["prompt","version","canaryPercent"]}),e("button",{type:"submit",disabled:I.busy,children:"Publish candidate"})]}),e("div",{children:[t.candidateVersion&&e("div",{class:"card",children:[e("h3",{children:["Candidate ",t.candidateVersion]}),e("button",{type:"button",class:"primary",onClick:W,disabled:_.busy,children:["Promote ",t.candidateVersion," to production"]}),e(V,{errors:_.errors,fields:[]}),e("form",{class:"form",onSubmit:J,"aria-label":"Canary share",children:[e(w,{label:"Share of sessions (%)",name:"canaryPercent",value:m,onInput:p,errors:y.errors,type:"number"}),e(V,{errors:y.errors,fields:["canaryPercent"]}),e("button",{type:"submit",disabled:y.busy,children:"Set canary share"})]})]}),L.length>0&&e("form",{class:"card form",onSubmit:$,"aria-label":"Roll back",children:[e("h3",{children:"Roll back production"}),e(q,{label:"Version to serve",name:"version",value:d,onChange:f,errors:b.errors,options:[["","The previous production version"],...L.map(E=>[E.version,`${E.version} (${E.channel})`])]}),e(V,{errors:b.errors,fields:["version"]}),e("button",{type:"submit",disabled:b.busy,children:"Roll back"})]})]})]})]})}function _s({skill:t}){const n=t.versions,r=n[n.length-1]?.version??"",s=n.length>1?n[n.length-2].version:r,[o,l]=h(s),[a,c]=h(r);F(()=>{l(s),c(r)},[s,r]);const u=n.find(p=>p.version===o)?.prompt??"",i=n.find(p=>p.version===a)?.prompt??"",m=n.map(p=>[p.version,`${p.version} (${p.channel})`]);return e("section",{"aria-labelledby":"versions-title",children:[e("h2",{id:"versions-title",children:"Versions"}),e("table",{class:"compact",children:[e("caption",{class:"sr-only",children:"Versions"}),e("thead",{children:e("tr",{children:[e("th",{scope:"col",children:"Version"}),e("th",{scope:"col",children:"Channel"}),e("th",{scope:"col",children:"Created"}),e("th",{scope:"col",children:"Characters"})]})}),e("tbody",{children:n.map(p=>e("tr",{children:[e("td",{children:p.version}),e("td",{children:e(T,{tone:G(p.channel),children:p.channel})}),e("td",{children:H(p.createdAt)}),e("td",{children:p.prompt.length})]},p.version))})]}),n.length>1&&e(v,{children:[e("h3",{children:"Diff"}),e("div",{class:"filters",children:[e(q,{label:"From version",name:"from",value:o,onChange:l,options:m}),e(q,{label:"To version",name:"to",value:a,onChange:c,options:m})]}),e("pre",{class:"diff","aria-label":`Diff from ${o} to ${a}`,tabIndex:0,children:ds(u,i).map((p,d)=>e("div",{class:p.kind,children:[e("span",{"aria-hidden":"true",children:p.kind==="added"?"+ ":p.kind==="removed"?"- ":"  "}),e("span",{class:"sr-only",children:p.kind==="added"?"added: ":p.kind==="removed"?"removed: ":""}),p.text]},d))})]})]})}function ys({skill:t}){return e("section",{"aria-labelledby":"history-title",children:[e("h2",{id:"history-title",children:"Channel history"}),e("table",{class:"compact",children:[e("caption",{class:"sr-only",children:"Channel history"}),e("thead",{children:e("tr",{children:[e("th",{scope:"col",children:"When"}),e("th",{scope:"col",children:"Action"}),e("th",{scope:"col",children:"Channel"}),e("th",{scope:"col",children:"From"}),e("th",{scope:"col",children:"To"}),e("th",{scope:"col",children:"Canary"}),e("th",{scope:"col",children:"By key"})]})}),e("tbody",{children:t.channelHistory.map((n,r)=>e("tr",{children:[e("td",{children:H(n.at)}),e("td",{children:n.action}),e("td",{children:n.channel}),e("td",{children:n.fromVersion??"—"}),e("td",{children:n.toVersion??"—"}),e("td",{children:n.canaryPercent===null?"—":`${n.canaryPercent}%`}),e("td",{children:e("code",{children:n.actor??"—"})})]},r))})]})]})}function vs({skill:t}){const{api:n}=A(),[r,s]=h(t.version),[o,l]=h(null),[a,c]=h(null),u=async()=>{try{const m=await n.request(lr,{id:t.id,version:r});l(m.skill?.skillMd??null)}catch(m){c(ee(m))}},i=o?URL.createObjectURL(new Blob([o],{type:"text/markdown"})):null;return F(()=>()=>i?URL.revokeObjectURL(i):void 0,[i]),e("section",{"aria-labelledby":"export-title",children:[e("h2",{id:"export-title",children:"SKILL.md"}),e("div",{class:"filters",children:[e(q,{label:"Export version",name:"exportVersion",value:r,onChange:s,options:t.versions.map(m=>[m.version,m.version])}),e("button",{type:"button",onClick:u,children:"Export SKILL.md"})]}),a&&e("p",{role:"alert",children:a}),o&&i&&e(v,{children:[e("a",{href:i,download:`${t.name}-SKILL.md`,children:["Download ",t.name,"/SKILL.md"]}),e("pre",{class:"json","aria-label":"SKILL.md",tabIndex:0,children:o})]})]})}function Ss(){const{api:t,viewer:n}=A(),r=Y(),[s,o]=h(n.space?.id??""),[l,a]=h(""),[c,u]=h(null),[i,m]=h(null),p=(r.data??[]).map(f=>[f.id,f.label]);return e("section",{"aria-labelledby":"match-title",children:[e("h2",{id:"match-title",children:"Match playground"}),e("form",{class:"card form",onSubmit:async f=>{f.preventDefault(),m(null);try{u((await t.request(hr,{spaceId:s||p[0]?.[0]||"",query:l,topK:10})).matchSkills)}catch(g){m(ee(g))}},role:"search","aria-label":"Match skills",children:[!n.space&&e(q,{label:"Space",name:"spaceId",value:s,onChange:o,options:p}),e(we,{label:"Request",name:"query",children:f=>e("input",{...f,value:l,onInput:g=>a(g.currentTarget.value)})}),e("button",{type:"submit",children:"Match"})]}),i&&e("p",{role:"alert",children:i}),c&&e("table",{children:[e("caption",{children:"Matches, best first"}),e("thead",{children:e("tr",{children:[e("th",{scope:"col",children:"Skill"}),e("th",{scope:"col",children:"Score"}),e("th",{scope:"col",children:"Lexical"}),e("th",{scope:"col",children:"Semantic"}),e("th",{scope:"col",children:"Boundary"}),e("th",{scope:"col",children:"Why"})]})}),e("tbody",{children:[c.length===0&&e("tr",{children:e("td",{colSpan:6,children:"No skill matches this request."})}),c.map(f=>e("tr",{children:[e("td",{children:e(C,{to:`/skills/${encodeURIComponent(f.skill.id)}`,children:f.skill.name})}),e("td",{children:f.score.toFixed(3)}),e("td",{children:f.lexicalScore.toFixed(3)}),e("td",{children:f.semanticScore===null?"—":f.semanticScore.toFixed(3)}),e("td",{children:f.boundaryFactor<1?`× ${f.boundaryFactor.toFixed(2)} (touches its boundary)`:"—"}),e("td",{children:f.reason??"—"})]},f.skill.id))]})]})]})}const Mt=50;function Is({sub:t}){return t==="new"?e(ws,{}):t?e(Cs,{id:decodeURIComponent(t)}):e(ks,{})}function ks(){const{api:t,can:n}=A(),r=ue("spaces"),s=j(()=>t.request(pr,{first:Mt,after:r.after}),[r.after]),o=s.data?.spaces;return e(v,{children:[e(M,{title:"Spaces",children:n.admin&&e(C,{class:"button primary",to:"/spaces/new",children:"Create space"})}),e(Q,{error:s.error,retry:s.reload}),o&&e(v,{children:[e("table",{children:[e("caption",{class:"sr-only",children:"Spaces"}),e("thead",{children:e("tr",{children:[e("th",{scope:"col",children:"Label"}),e("th",{scope:"col",children:"Name"}),e("th",{scope:"col",children:"Id"}),e("th",{scope:"col",children:"Created"})]})}),e("tbody",{children:o.edges.map(({node:l})=>e("tr",{children:[e("td",{children:[e(C,{to:`/spaces/${encodeURIComponent(l.id)}`,children:l.label})," ",l.isSystem&&e(T,{children:"system"})]}),e("td",{children:e("code",{children:l.name})}),e("td",{children:e("code",{children:l.id})}),e("td",{children:H(l.createdAt)})]},l.id))})]}),e(he,{label:"Spaces",page:r.page,pageSize:Mt,shown:o.edges.length,total:o.totalCount,hasNext:o.pageInfo.hasNextPage,onNext:()=>r.next(o.pageInfo.endCursor),onPrevious:r.previous})]})]})}function ws(){const{api:t,can:n}=A(),[r,s]=h(""),[o,l]=h(""),a=K();return n.admin?e(v,{children:[e(M,{title:"Create space"}),e("form",{class:"card form",onSubmit:async u=>{u.preventDefault();const i=await a.run(async()=>(await t.request(fr,{input:{name:r,label:o}})).createSpace);i?.space&&re(X(`/spaces/${encodeURIComponent(i.space.id)}?created=1`))},children:[e(w,{label:"Name",name:"name",value:r,onInput:s,errors:a.errors,hint:"Unique machine name: 1-64 of a-z, 0-9, '_' and '-'.",required:!0}),e(w,{label:"Label",name:"label",value:o,onInput:l,errors:a.errors,hint:"Display name for people.",required:!0}),e(V,{errors:a.errors,fields:["name","label"]}),e("div",{class:"buttons",children:[e("button",{type:"submit",class:"primary",disabled:a.busy,children:"Create space"}),e(C,{class:"button",to:"/spaces",children:"Cancel"})]})]})]}):e("p",{children:"Only ADMIN keys create spaces."})}function Cs({id:t}){const{api:n}=A(),r=j(()=>n.request(mr,{id:t}),[t]),s=r.data?.space,o=new URLSearchParams(window.location.search).has("created");return r.data&&!s?e(v,{children:[e(M,{title:"Space not found"}),e("p",{children:["No space ",e("code",{children:t})," is visible to this key. ",e(C,{to:"/spaces",children:"Back to Spaces"})]})]}):e(v,{children:[e(M,{title:s?`Space ${s.label}`:"Space",children:e(C,{class:"button",to:"/spaces",children:"All spaces"})}),e(Q,{error:r.error,retry:r.reload}),o&&s&&e(Ce,{children:["Space ",s.name," created."]}),s&&e(v,{children:[e("dl",{class:"facts",children:[e("dt",{children:"Name"}),e("dd",{children:e("code",{children:s.name})}),e("dt",{children:"Id"}),e("dd",{children:e("code",{children:s.id})}),e("dt",{children:"Created"}),e("dd",{children:H(s.createdAt)})]}),e("h2",{children:"What this space can see"}),e("div",{class:"columns",children:[e("section",{"aria-labelledby":"visible-tools",children:[e("h3",{id:"visible-tools",children:["Tools (",s.visibleTools.totalCount,")"]}),e("ul",{class:"plain",children:s.visibleTools.edges.map(({node:l})=>e("li",{children:[e(C,{to:`/tools/${encodeURIComponent(l.id)}`,children:l.name})," ",e(T,{children:l.type})," ",e(T,{tone:l.isGlobal?"plain":"busy",children:l.isGlobal?"global":"bound"})]},l.id))}),s.visibleTools.totalCount>s.visibleTools.edges.length&&e(C,{to:`/tools?space=${encodeURIComponent(s.id)}`,children:["All ",s.visibleTools.totalCount," tools"]})]}),e("section",{"aria-labelledby":"visible-skills",children:[e("h3",{id:"visible-skills",children:["Skills (",s.skills.totalCount,")"]}),e("ul",{class:"plain",children:s.skills.edges.map(({node:l})=>e("li",{children:[e(C,{to:`/skills/${encodeURIComponent(l.id)}`,children:l.name})," ",e("span",{class:"muted",children:l.version})," ",!l.space&&e(T,{children:"global"})]},l.id))})]}),e("section",{"aria-labelledby":"visible-kbs",children:[e("h3",{id:"visible-kbs",children:["Knowledge bases (",s.knowledgeBases.totalCount,")"]}),e("ul",{class:"plain",children:s.knowledgeBases.edges.map(({node:l})=>e("li",{children:[e(C,{to:`/knowledge/${encodeURIComponent(l.id)}`,children:l.label})," ",e("span",{class:"muted",children:[l.documentCount," documents"]})]},l.id))})]}),e("section",{"aria-labelledby":"visible-agents",children:[e("h3",{id:"visible-agents",children:["Agents (",s.agents.totalCount,")"]}),e("ul",{class:"plain",children:s.agents.edges.map(({node:l})=>e("li",{children:[e(C,{to:`/agents/${encodeURIComponent(l.id)}`,children:l.name})," ",e("span",{class:"muted",children:l.model})]},l.id))})]})]})]})]})}const As=[{path:"/spaces",name:"Spaces"},{path:"/tools",name:"Tools"},{path:"/mcp-servers",name:"MCP servers"},{path:"/knowledge",name:"Knowledge"},{path:"/skills",name:"Skills"},{path:"/agents",name:"Agents"},{path:"/live-calls",name:"Live calls"},{path:"/api-keys",name:"API keys"}];function $s(){const[t,n]=h(()=>bt()?{kind:"checking"}:{kind:"signedOut",reason:Sn()}),r=Le(o=>{_n(o??null),n({kind:"signedOut",reason:o??null})},[]),s=Le(async o=>{const l=new Lt(o,c=>r(an(c))),{viewer:a}=await l.request(en,{});l.close(),yn(o),n({kind:"signedIn",key:o,viewer:a})},[r]);return F(()=>{if(t.kind!=="checking")return;const o=bt();if(!o){n({kind:"signedOut",reason:null});return}s(o).catch(l=>{l instanceof tt||n({kind:"signedOut",reason:ee(l)})})},[t.kind,s]),F(()=>{const o=l=>{l.key===vn&&l.newValue===null&&r("You signed out in another window.")};return window.addEventListener("storage",o),()=>window.removeEventListener("storage",o)},[r]),t.kind==="checking"?e("main",{class:"signin","aria-busy":"true",children:e("p",{children:"Checking the saved API key…"})}):t.kind==="signedOut"?e(Ts,{reason:t.reason,onSignIn:s}):e(Es,{apiKey:t.key,viewer:t.viewer,signOut:r},t.key)}function an(t){return`You were signed out because Quiver no longer accepts this API key (${t.replace(/\.$/,"")}). It may have been revoked; sign in with another key.`}function Ts({reason:t,onSignIn:n}){const[r,s]=h(""),[o,l]=h(null),[a,c]=h(!1);return e("main",{class:"signin",id:"main",children:e("form",{class:"card",onSubmit:async i=>{i.preventDefault();const m=r.trim();if(!m){l("Enter an API key.");return}c(!0),l(null);try{const p=await gn(m);if(!p.ok){l(`This key was refused: ${p.reason}`);return}await n(m)}catch(p){l(ee(p))}finally{c(!1)}},"aria-labelledby":"signin-title",children:[e("h1",{id:"signin-title",children:"Quiver console"}),e("p",{class:"hint",children:["Sign in with an API key. ",e("code",{children:"quiver serve"})," prints an ADMIN key on its first run;"," ",e("code",{children:"quiver apikey create"})," makes more."]}),t&&e("p",{class:"signed-out",role:"alert",children:t}),e("div",{class:`field${o?" invalid":""}`,children:[e("label",{for:"api-key",children:"API key"}),e("input",{id:"api-key",name:"apiKey",type:"password",autoComplete:"current-password",value:r,"aria-invalid":o!==null,"aria-describedby":o?"api-key-error":void 0,onInput:i=>s(i.currentTarget.value),autoFocus:!0}),o&&e("p",{class:"field-error",id:"api-key-error",role:"alert",children:o})]}),e("button",{type:"submit",class:"primary",disabled:a,children:"Sign in"}),e("p",{class:"hint",children:[e("a",{href:"/graphql",children:"GraphiQL"})," uses the same key."]})]})})}function Es({apiKey:t,viewer:n,signOut:r}){const[s,o]=h(n),l=me(()=>new Lt(t,u=>r(an(u))),[t,r]);F(()=>()=>l.close(),[l]),F(()=>{const u=window.setInterval(()=>{l.request(en,{}).then(i=>o(i.viewer),()=>{})},wr);return()=>window.clearInterval(u)},[l]);const a=me(()=>({api:l,viewer:s,can:Cr(s),signOut:r}),[l,s,r]),c=tn();return F(()=>{c===""&&re(X("/spaces"),{replace:!0})},[c]),e(nn.Provider,{value:a,children:[e("a",{class:"skip",href:"#main",children:"Skip to content"}),e("header",{class:"topbar",children:[e("span",{class:"brand",children:"Quiver"}),e("p",{class:"who","aria-label":"Signed in as",children:[e("span",{class:"badge role",children:s.role})," ",s.space?e(v,{children:["space ",e("strong",{children:s.space.label})," ",e("span",{class:"muted",children:["(",s.space.name,")"]})]}):e(v,{children:"every space"})," ",e("span",{class:"muted",children:["· key ",s.keyLabel?`“${s.keyLabel}” `:"",e("code",{children:s.keyId})]})]}),e("a",{href:"/graphql",class:"graphiql-link",children:"GraphiQL"}),e("button",{type:"button",onClick:()=>r(),children:"Sign out"})]}),e("div",{class:"layout",children:[e("nav",{class:"sidebar","aria-label":"Pages",children:e("ul",{children:As.map(u=>e("li",{children:e(C,{to:u.path,"aria-current":c===u.path||c.startsWith(`${u.path}/`)?"page":void 0,children:u.name})},u.path))})}),e("main",{id:"main",class:"content",children:e(Ps,{path:c})})]})]})}function Ps({path:t}){const[,n,...r]=t.split("/"),s=r.join("/");switch(n){case"spaces":return e(Is,{sub:s});case"tools":return e($r,{sub:s});case"mcp-servers":return e(ls,{});case"knowledge":return e(Yr,{sub:s});case"skills":return e(us,{sub:s});case"agents":return e(Kr,{sub:s});case"live-calls":return e(rs,{});case"api-keys":return e(zr,{});case void 0:return null;default:return e(v,{children:[e(M,{title:"Not found"}),e("p",{children:["No page at ",e("code",{children:X(t)}),". ",e(C,{to:"/spaces",children:"Go to Spaces"}),"."]})]})}}En(e($s,{}),document.getElementById("app"));
