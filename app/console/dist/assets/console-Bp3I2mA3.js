import{A as it,s as kt,c as Rn,e as Wt,f as Dn,a as Pn,K as Nn,g as xn}from"./keystore-o0yXx_Ql.js";var Fe,x,zt,ce,Ct,Jt,Zt,ze,Pe,Ce,Qt,ct,et,tt,Yt,Me={},qe=[],Ln=/acit|ex(?:s|g|n|p|$)|rph|grid|ows|mnc|ntw|ine[ch]|zoo|^ord|itera/i,He=Array.isArray;function re(t,n){for(var r in n)t[r]=n[r];return t}function dt(t){t&&t.parentNode&&t.parentNode.removeChild(t)}function Mn(t,n,r){var o,a,s,l={};for(s in n)s=="key"?o=n[s]:s=="ref"?a=n[s]:l[s]=n[s];if(arguments.length>2&&(l.children=arguments.length>3?Fe.call(arguments,2):r),typeof t=="function"&&t.defaultProps!=null)for(s in t.defaultProps)l[s]===void 0&&(l[s]=t.defaultProps[s]);return Ne(t,l,o,a,null)}function Ne(t,n,r,o,a){var s={type:t,props:n,key:r,ref:o,__k:null,__:null,__b:0,__e:null,__c:null,constructor:void 0,__v:a??++zt,__i:-1,__u:0};return a==null&&x.vnode!=null&&x.vnode(s),s}function S(t){return t.children}function xe(t,n){this.props=t,this.context=n}function pe(t,n){if(n==null)return t.__?pe(t.__,t.__i+1):null;for(var r;n<t.__k.length;n++)if((r=t.__k[n])!=null&&r.__e!=null)return r.__e;return typeof t.type=="function"?pe(t):null}function qn(t){if(t.__P&&t.__d){var n=t.__v,r=n.__e,o=[],a=[],s=re({},n);s.__v=n.__v+1,x.vnode&&x.vnode(s),ut(t.__P,s,n,t.__n,t.__P.namespaceURI,32&n.__u?[r]:null,o,r??pe(n),!!(32&n.__u),a),s.__v=n.__v,s.__.__k[s.__i]=s,rn(o,s,a),n.__e=n.__=null,s.__e!=r&&Xt(s)}}function Xt(t){if((t=t.__)!=null&&t.__c!=null)return t.__e=t.__c.base=null,t.__k.some(function(n){if(n!=null&&n.__e!=null)return t.__e=t.__c.base=n.__e}),Xt(t)}function nt(t){(!t.__d&&(t.__d=!0)&&ce.push(t)&&!Ue.__r++||Ct!=x.debounceRendering)&&((Ct=x.debounceRendering)||Jt)(Ue)}function Ue(){try{for(var t,n=1;ce.length;)ce.length>n&&ce.sort(Zt),t=ce.shift(),n=ce.length,qn(t)}finally{ce.length=Ue.__r=0}}function en(t,n,r,o,a,s,l,i,d,c,h){var m,u,f,_,y,b,w=o&&o.__k||qe,g=n.length;for(d=Un(r,n,w,d,g),m=0;m<g;m++)(f=r.__k[m])!=null&&(u=f.__i!=-1&&w[f.__i]||Me,f.__i=m,b=ut(t,f,u,a,s,l,i,d,c,h),_=f.__e,f.ref&&u.ref!=f.ref&&(u.ref&&pt(u.ref,null,f),h.push(f.ref,f.__c||_,f)),y==null&&_!=null&&(y=_),4&f.__u?(d=tn(f,d,t),u.__e&&(u.__e=null)):typeof f.type=="function"&&b!==void 0?d=b:_&&(d=_.nextSibling),f.__u&=-7);return r.__e=y,d}function Un(t,n,r,o,a){var s,l,i,d,c,h=r.length,m=h,u=0;for(t.__k=new Array(a),s=0;s<a;s++)(l=n[s])!=null&&typeof l!="boolean"&&typeof l!="function"?(typeof l=="string"||typeof l=="number"||typeof l=="bigint"||l.constructor==String?l=t.__k[s]=Ne(null,l,null,null,null):He(l)?l=t.__k[s]=Ne(S,{children:l},null,null,null):l.constructor===void 0&&l.__b>0?l=t.__k[s]=Ne(l.type,l.props,l.key,l.ref?l.ref:null,l.__v):t.__k[s]=l,d=s+u,l.__=t,l.__b=t.__b+1,i=null,(c=l.__i=Bn(l,r,d,m))!=-1&&(m--,(i=r[c])&&(i.__u|=2)),i==null||i.__v==null?(c==-1&&(a>h?u--:a<h&&u++),typeof l.type!="function"&&(l.__u|=4)):c!=d&&(c==d-1?u--:c==d+1?u++:(c>d?u--:u++,l.__u|=4))):t.__k[s]=null;if(m)for(s=0;s<h;s++)(i=r[s])!=null&&(2&i.__u)==0&&(i.__e==o&&(o=pe(i)),sn(i,i));return o}function tn(t,n,r){var o,a;if(typeof t.type=="function"){for(o=t.__k,a=0;o&&a<o.length;a++)o[a]&&(o[a].__=t,n=tn(o[a],n,r));return n}t.__e!=n&&(n&&t.type&&!n.parentNode&&(n=pe(t)),n=r.insertBefore(t.__e,n||null));do n=n&&n.nextSibling;while(n!=null&&n.nodeType==8);return n}function Bn(t,n,r,o){var a,s,l,i=t.key,d=t.type,c=n[r],h=c!=null&&(2&c.__u)==0;if(c===null&&i==null||h&&i==c.key&&d==c.type)return r;if(o>(h?1:0)){for(a=r-1,s=r+1;a>=0||s<n.length;)if((c=n[l=a>=0?a--:s++])!=null&&(2&c.__u)==0&&i==c.key&&d==c.type)return l}return-1}function At(t,n,r){n[0]=="-"?t.setProperty(n,r??""):t[n]=r==null?"":typeof r!="number"||Ln.test(n)?r:r+"px"}function De(t,n,r,o,a){var s,l;e:if(n=="style")if(typeof r=="string")t.style.cssText=r;else{if(typeof o=="string"&&(t.style.cssText=o=""),o)for(n in o)r&&n in r||At(t.style,n,"");if(r)for(n in r)o&&r[n]==o[n]||At(t.style,n,r[n])}else if(n[0]=="o"&&n[1]=="n")s=n!=(n=n.replace(Qt,"$1")),l=n.toLowerCase(),n=l in t||n=="onFocusOut"||n=="onFocusIn"?l.slice(2):n.slice(2),t.l||(t.l={}),t.l[n+s]=r,r?o?r[Ce]=o[Ce]:(r[Ce]=ct,t.addEventListener(n,s?tt:et,s)):t.removeEventListener(n,s?tt:et,s);else{if(a=="http://www.w3.org/2000/svg")n=n.replace(/xlink(H|:h)/,"h").replace(/sName$/,"s");else if(n!="width"&&n!="height"&&n!="href"&&n!="list"&&n!="form"&&n!="tabIndex"&&n!="download"&&n!="rowSpan"&&n!="colSpan"&&n!="role"&&n!="popover"&&n in t)try{t[n]=r??"";break e}catch{}typeof r=="function"||(r==null||r===!1&&n[4]!="-"?t.removeAttribute(n):t.setAttribute(n,n=="popover"&&r==1?"":r))}}function $t(t){return function(n){if(this.l){var r=this.l[n.type+t];if(n[Pe]==null)n[Pe]=ct++;else if(n[Pe]<r[Ce])return;return r(x.event?x.event(n):n)}}}function ut(t,n,r,o,a,s,l,i,d,c){var h,m,u,f,_,y,b,w,g,v,k,T,U,W,$,P,N=n.type;if(n.constructor!==void 0)return null;128&r.__u&&(d=!!(32&r.__u),s=[i=n.__e=r.__e]),(h=x.__b)&&h(n);e:if(typeof N=="function"){m=l.length;try{if(g=n.props,v=N.prototype&&N.prototype.render,k=(h=N.contextType)&&o[h.__c],T=h?k?k.props.value:h.__:o,r.__c?w=(u=n.__c=r.__c).__=u.__E:(v?n.__c=u=new N(g,T):(n.__c=u=new xe(g,T),u.constructor=N,u.render=Kn),k&&k.sub(u),u.state||(u.state={}),u.__n=o,f=u.__d=!0,u.__h=[],u._sb=[]),v&&u.__s==null&&(u.__s=u.state),v&&N.getDerivedStateFromProps!=null&&(u.__s==u.state&&(u.__s=re({},u.__s)),re(u.__s,N.getDerivedStateFromProps(g,u.__s))),_=u.props,y=u.state,u.__v=n,f)v&&N.getDerivedStateFromProps==null&&u.componentWillMount!=null&&u.componentWillMount(),v&&u.componentDidMount!=null&&u.__h.push(u.componentDidMount);else{if(v&&N.getDerivedStateFromProps==null&&g!==_&&u.componentWillReceiveProps!=null&&u.componentWillReceiveProps(g,T),n.__v==r.__v||!u.__e&&u.shouldComponentUpdate!=null&&u.shouldComponentUpdate(g,u.__s,T)===!1){n.__v!=r.__v&&(u.props=g,u.state=u.__s,u.__d=!1),n.__e=r.__e,n.__k=r.__k,n.__k.some(function(j){j&&(j.__=n)}),qe.push.apply(u.__h,u._sb),u._sb=[],u.__h.length&&l.push(u),i=pe(r);break e}u.componentWillUpdate!=null&&u.componentWillUpdate(g,u.__s,T),v&&u.componentDidUpdate!=null&&u.__h.push(function(){u.componentDidUpdate(_,y,b)})}if(u.context=T,u.props=g,u.__P=t,u.__e=!1,U=x.__r,W=0,v)u.state=u.__s,u.__d=!1,U&&U(n),h=u.render(u.props,u.state,u.context),qe.push.apply(u.__h,u._sb),u._sb=[];else do u.__d=!1,U&&U(n),h=u.render(u.props,u.state,u.context),u.state=u.__s;while(u.__d&&++W<25);u.state=u.__s,u.getChildContext!=null&&(o=re(re({},o),u.getChildContext())),v&&!f&&u.getSnapshotBeforeUpdate!=null&&(b=u.getSnapshotBeforeUpdate(_,y)),$=h!=null&&h.type===S&&h.key==null?on(h.props.children):h,i=en(t,He($)?$:[$],n,r,o,a,s,l,i,d,c),u.base=n.__e,n.__u&=-161,u.__h.length&&l.push(u),w&&(u.__E=u.__=null)}catch(j){if(l.length=m,n.__v=null,d||s!=null){if(j.then){for(n.__u|=d?160:128;i&&i.nodeType==8&&i.nextSibling;)i=i.nextSibling;s!=null&&(s[s.indexOf(i)]=null),n.__e=i}else if(s!=null)for(P=s.length;P--;)dt(s[P])}else n.__e=r.__e;n.__k==null&&(n.__k=r.__k||[]),j.then||nn(n),x.__e(j,n,r)}}else s==null&&n.__v==r.__v?(n.__k=r.__k,n.__e=r.__e):i=n.__e=On(r.__e,n,r,o,a,s,l,d,c);return(h=x.diffed)&&h(n),128&n.__u?void 0:i}function nn(t){t&&(t.__c&&(t.__c.__e=!0),t.__k&&t.__k.some(nn))}function rn(t,n,r){for(var o=0;o<r.length;o++)pt(r[o],r[++o],r[++o]);x.__c&&x.__c(n,t),t.some(function(a){try{t=a.__h,a.__h=[],t.some(function(s){s.call(a)})}catch(s){x.__e(s,a.__v)}})}function on(t){return typeof t!="object"||t==null||t.__b>0?t:He(t)?t.map(on):t.constructor!==void 0?null:re({},t)}function On(t,n,r,o,a,s,l,i,d){var c,h,m,u,f,_,y,b=r.props||Me,w=n.props,g=n.type;if(g=="svg"?a="http://www.w3.org/2000/svg":g=="math"?a="http://www.w3.org/1998/Math/MathML":a||(a="http://www.w3.org/1999/xhtml"),s!=null){for(c=0;c<s.length;c++)if((f=s[c])&&"setAttribute"in f==!!g&&(g?f.localName==g:f.nodeType==3)){t=f,s[c]=null;break}}if(t==null){if(g==null)return document.createTextNode(w);t=document.createElementNS(a,g,w.is&&w),i&&(x.__m&&x.__m(n,s),i=!1),s=null}if(g==null)b===w||i&&t.data==w||(t.data=w);else{if(s=g=="textarea"&&w.defaultValue!=null?null:s&&Fe.call(t.childNodes),!i&&s!=null)for(b={},c=0;c<t.attributes.length;c++)b[(f=t.attributes[c]).name]=f.value;for(c in b)f=b[c],c=="dangerouslySetInnerHTML"?m=f:c=="children"||c in w||c=="value"&&"defaultValue"in w||c=="checked"&&"defaultChecked"in w||De(t,c,null,f,a);for(c in w)f=w[c],c=="children"?u=f:c=="dangerouslySetInnerHTML"?h=f:c=="value"?_=f:c=="checked"?y=f:i&&typeof f!="function"||b[c]===f||De(t,c,f,b[c],a);if(h)i||m&&(h.__html==m.__html||h.__html==t.innerHTML)||(t.innerHTML=h.__html),n.__k=[];else if(m&&(t.innerHTML=""),en(n.type=="template"?t.content:t,He(u)?u:[u],n,r,o,g=="foreignObject"?"http://www.w3.org/1999/xhtml":a,s,l,s?s[0]:r.__k&&pe(r,0),i,d),s!=null)for(c=s.length;c--;)dt(s[c]);i&&g!="textarea"||(c="value",g=="progress"&&_==null?t.removeAttribute("value"):_!=null&&(_!==t[c]||g=="progress"&&!_||g=="option"&&_!=b[c])&&De(t,c,_,b[c],a),c="checked",y!=null&&y!=t[c]&&De(t,c,y,b[c],a))}return t}function pt(t,n,r){try{if(typeof t=="function"){var o=typeof t.__u=="function";o&&t.__u(),o&&n==null||(t.__u=t(n))}else t.current=n}catch(a){x.__e(a,r)}}function sn(t,n,r){var o,a;if(x.unmount&&x.unmount(t),(o=t.ref)&&(o.current&&o.current!=t.__e||pt(o,null,n)),(o=t.__c)!=null){if(o.componentWillUnmount)try{o.componentWillUnmount()}catch(s){x.__e(s,n)}o.base=o.__P=o.__n=null}if(o=t.__k)for(a=0;a<o.length;a++)o[a]&&sn(o[a],n,r||typeof t.type!="function");r||dt(t.__e),t.__c=t.__=t.__e=void 0}function Kn(t,n,r){return this.constructor(t,r)}function Vn(t,n,r){var o,a,s,l;n==document&&(n=document.documentElement),x.__&&x.__(t,n),a=(o=!1)?null:n.__k,s=[],l=[],ut(n,t=n.__k=Mn(S,null,[t]),a||Me,Me,n.namespaceURI,a?null:n.firstChild?Fe.call(n.childNodes):null,s,a?a.__e:n.firstChild,o,l),rn(s,t,l),t.props.children=null}function Fn(t){function n(r){var o,a;return this.getChildContext||(o=new Set,(a={})[n.__c]=this,this.getChildContext=function(){return a},this.componentWillUnmount=function(){o=null},this.shouldComponentUpdate=function(s){this.props.value!=s.value&&o.forEach(function(l){l.__e=!0,nt(l)})},this.sub=function(s){o.add(s);var l=s.componentWillUnmount;s.componentWillUnmount=function(){o&&o.delete(s),l&&l.call(s)}}),r.children}return n.__c="__cC"+Yt++,n.__=t,n.Provider=n.__l=(n.Consumer=function(r,o){return r.children(o)}).contextType=n,n}Fe=qe.slice,x={__e:function(t,n,r,o){for(var a,s,l;n=n.__;)if((a=n.__c)&&!a.__)try{if((s=a.constructor)&&s.getDerivedStateFromError!=null&&(a.setState(s.getDerivedStateFromError(t)),l=a.__d),a.componentDidCatch!=null&&(a.componentDidCatch(t,o||{}),l=a.__d),l)return a.__E=a}catch(i){t=i}throw t}},zt=0,xe.prototype.setState=function(t,n){var r;r=this.__s!=null&&this.__s!=this.state?this.__s:this.__s=re({},this.state),typeof t=="function"&&(t=t(re({},r),this.props)),t&&re(r,t),t!=null&&this.__v&&(n&&this._sb.push(n),nt(this))},xe.prototype.forceUpdate=function(t){this.__v&&(this.__e=!0,t&&this.__h.push(t),nt(this))},xe.prototype.render=S,ce=[],Jt=typeof Promise=="function"?Promise.prototype.then.bind(Promise.resolve()):setTimeout,Zt=function(t,n){return t.__v.__b-n.__v.__b},Ue.__r=0,ze=Math.random().toString(8),Pe="__d"+ze,Ce="__a"+ze,Qt=/(PointerCapture)$|Capture$/i,ct=0,et=$t(!1),tt=$t(!0),Yt=0;var Hn=0;function e(t,n,r,o,a,s){n||(n={});var l,i,d=n;if("ref"in d)for(i in d={},n)i=="ref"?l=n[i]:d[i]=n[i];var c={type:t,props:d,key:r,ref:l,__k:null,__:null,__b:0,__e:null,__c:null,constructor:void 0,__v:--Hn,__i:-1,__u:0,__source:a,__self:s};if(typeof t=="function"&&(l=t.defaultProps))for(i in l)d[i]===void 0&&(d[i]=l[i]);return x.vnode&&x.vnode(c),c}var he,M,Je,Tt,Ae=0,an=[],K=x,Et=K.__b,Rt=K.__r,Dt=K.diffed,Pt=K.__c,Nt=K.unmount,xt=K.__;function $e(t,n){K.__h&&K.__h(M,t,Ae||n),Ae=0;var r=M.__H||(M.__H={__:[],__h:[]});return t>=r.__.length&&r.__.push({}),r.__[t]}function p(t){return Ae=1,jn(cn,t)}function jn(t,n,r){var o=$e(he++,2);if(o.t=t,!o.__c&&(o.__=[cn(void 0,n),function(i){var d=o.__N?o.__N[0]:o.__[0],c=o.t(d,i);d!==c&&(o.__N=[c,o.__[1]],o.__c.setState({}))}],o.__c=M,!M.__f)){var a=function(i,d,c){if(!o.__c.__H)return!0;var h=!1,m=o.__c.props!==i;if(o.__c.__H.__.some(function(f){if(f.__N){h=!0;var _=f.__[0];f.__=f.__N,f.__N=void 0,_!==f.__[0]&&(m=!0)}}),s){var u=s.call(this,i,d,c);return h?u||m:u}return!h||m};M.__f=!0;var s=M.shouldComponentUpdate,l=M.componentWillUpdate;M.componentWillUpdate=function(i,d,c){if(this.__e){var h=s;s=void 0,a(i,d,c),s=h}l&&l.call(this,i,d,c)},M.shouldComponentUpdate=a}return o.__N||o.__}function D(t,n){var r=$e(he++,3);!K.__s&&ln(r.__H,n)&&(r.__=t,r.u=n,M.__H.__h.push(r))}function _e(t){return Ae=5,ye(function(){return{current:t}},[])}function ye(t,n){var r=$e(he++,7);return ln(r.__H,n)&&(r.__=t(),r.__H=n,r.__h=t),r.__}function Be(t,n){return Ae=8,ye(function(){return t},n)}function Gn(t){var n=M.context[t.__c],r=$e(he++,9);return r.c=t,n?(r.__==null&&(r.__=!0,n.sub(M)),n.props.value):t.__}function Wn(){var t=$e(he++,11);if(!t.__){for(var n=M.__v;n!==null&&!n.__m&&n.__!==null;)n=n.__;var r=n.__m||(n.__m=[0,0]);t.__="P"+r[0]+"-"+r[1]++}return t.__}function zn(){for(var t;t=an.shift();){var n=t.__H;if(t.__P&&n)try{n.__h.some(Le),n.__h.some(rt),n.__h=[]}catch(r){n.__h=[],K.__e(r,t.__v)}}}K.__b=function(t){M=null,Et&&Et(t)},K.__=function(t,n){t&&n.__k&&n.__k.__m&&(t.__m=n.__k.__m),xt&&xt(t,n)},K.__r=function(t){Rt&&Rt(t),he=0;var n=(M=t.__c).__H;n&&(Je===M?(n.__h=[],M.__h=[],n.__.some(function(r){r.__N&&(r.__=r.__N),r.u=r.__N=void 0})):(n.__h.some(Le),n.__h.some(rt),n.__h=[],he=0)),Je=M},K.diffed=function(t){Dt&&Dt(t);var n=t.__c;n&&n.__H&&(n.__H.__h.length&&(an.push(n)!==1&&Tt===K.requestAnimationFrame||((Tt=K.requestAnimationFrame)||Jn)(zn)),n.__H.__.some(function(r){r.u&&(r.__H=r.u,r.u=void 0)})),Je=M=null},K.__c=function(t,n){n.some(function(r){try{r.__h.some(Le),r.__h=r.__h.filter(function(o){return!o.__||rt(o)})}catch(o){n.some(function(a){a.__h&&(a.__h=[])}),n=[],K.__e(o,r.__v)}}),Pt&&Pt(t,n)},K.unmount=function(t){Nt&&Nt(t);var n,r=t.__c;r&&r.__H&&(r.__H.__.some(function(o){try{Le(o)}catch(a){n=a}}),r.__H=void 0,n&&K.__e(n,r.__v))};var Lt=typeof requestAnimationFrame=="function";function Jn(t){var n,r=function(){clearTimeout(o),Lt&&cancelAnimationFrame(n),setTimeout(t)},o=setTimeout(r,35);Lt&&(n=requestAnimationFrame(r))}function Le(t){var n=M,r=t.__c;typeof r=="function"&&(t.__c=void 0,r()),M=n}function rt(t){var n=M;t.__c=t.__(),M=n}function ln(t,n){return!t||t.length!==n.length||n.some(function(r,o){return r!==t[o]})}function cn(t,n){return typeof n=="function"?n(t):n}class I extends String{__apiType;value;__meta__;constructor(n,r){super(n),this.value=n,this.__meta__=r}toString(){return this.value}}new I(`
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
    `,{fragmentName:"RunRow"});new I(`
    fragment PendingApproval on ToolCall {
  id
  toolId
  arguments
  tool {
    id
    name
    label
  }
  agent {
    id
    name
  }
  run {
    id
    status
  }
  approval {
    requestedAt
    expiresAt
  }
}
    `,{fragmentName:"PendingApproval"});new I(`
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
    `,{fragmentName:"CallRow"});new I(`
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
    `,{fragmentName:"ToolRow"});const Zn=new I(`
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
    `),Qn=new I(`
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
}`),Yn=new I(`
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
    `),Xn=new I(`
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
    `),er=new I(`
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
    `),tr=new I(`
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
    `),nr=new I(`
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
}`),rr=new I(`
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
    `),Mt=new I(`
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
}`),or=new I(`
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
    `),sr=new I(`
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
    `),ar=new I(`
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
    `),lr=new I(`
    query PendingApprovals($spaceId: ID!, $first: Int!, $after: String) {
  pendingApprovals(spaceId: $spaceId, first: $first, after: $after) {
    totalCount
    pageInfo {
      hasNextPage
      endCursor
    }
    edges {
      node {
        ...PendingApproval
      }
    }
  }
}
    fragment PendingApproval on ToolCall {
  id
  toolId
  arguments
  tool {
    id
    name
    label
  }
  agent {
    id
    name
  }
  run {
    id
    status
  }
  approval {
    requestedAt
    expiresAt
  }
}`),ir=new I(`
    query PendingApprovalCount($spaceId: ID!) {
  pendingApprovals(spaceId: $spaceId, first: 1) {
    totalCount
  }
}
    `),cr=new I(`
    mutation ApproveToolCall($input: ApproveToolCallInput!) {
  approveToolCall(input: $input) {
    toolCall {
      id
      status
      approval {
        decision
        comment
      }
    }
    run {
      id
      status
    }
    userErrors {
      field
      code
      message
    }
  }
}
    `),dr=new I(`
    mutation RejectToolCall($input: RejectToolCallInput!) {
  rejectToolCall(input: $input) {
    toolCall {
      id
      status
      approval {
        decision
        comment
      }
    }
    run {
      id
      status
    }
    userErrors {
      field
      code
      message
    }
  }
}
    `),ur=new I(`
    subscription ApprovalRequests($spaceId: ID!) {
  approvalRequests(spaceId: $spaceId) {
    kind
    toolCallId
  }
}
    `),pr=new I(`
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
}`);new I(`
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
}`);const dn=new I(`
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
    `),hr=new I(`
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
    `),mr=new I(`
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
    `),fr=new I(`
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
    `),gr=new I(`
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
    `),br=new I(`
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
      }
    }
  }
}
    `),_r=new I(`
    query McpServerTools($id: ID!, $after: String) {
  node(id: $id) {
    ... on McpServer {
      id
      tools(first: 100, after: $after) {
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
            status
            driftedAt
          }
        }
      }
    }
  }
}
    `),yr=new I(`
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
    `),vr=new I(`
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
    `),Sr=new I(`
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
    `),wr=new I(`
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
    `),Ir=new I(`
    query SkillMd($id: ID!, $version: String) {
  skill(id: $id) {
    id
    name
    skillMd(version: $version)
  }
}
    `),kr=new I(`
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
    `),Cr=new I(`
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
    `),Ar=new I(`
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
    `),$r=new I(`
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
    `),Tr=new I(`
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
    `),Er=new I(`
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
    `),Rr=new I(`
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
    `),Dr=new I(`
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
    `),Pr=new I(`
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
    `),Nr=new I(`
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
    `),xr=new I(`
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
}`),Lr=new I(`
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
}`),un=new I(`
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
    `),Mr=new I(`
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
    `),qr=new I(`
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
    `),Ur=new I(`
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
    `),ht=new I(`
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
    `),Br=new I(`
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
    `),pn=new I(`
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
    `),Or=new I(`
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
    `),ot="/console";let mt=0;function Kr(){return mt}function oe(t,{replace:n=!1}={}){n?window.history.replaceState(null,"",t):(mt+=1,window.history.pushState(null,"",t)),window.dispatchEvent(new PopStateEvent("popstate"))}window.addEventListener("popstate",t=>{t.isTrusted&&(mt+=1)});function hn(){const[t,n]=p(qt);return D(()=>{const r=()=>n(qt());return window.addEventListener("popstate",r),()=>window.removeEventListener("popstate",r)},[]),t}function qt(){const t=window.location.pathname;return(t.startsWith(ot)?t.slice(ot.length):t).replace(/\/+$/,"")}function ft(t){return hn(),new URLSearchParams(window.location.search).get(t)}function X(t){return`${ot}${t}`}function E({to:t,children:n,...r}){return e("a",{...r,href:X(t),onClick:o=>{o.defaultPrevented||o.button!==0||o.metaKey||o.ctrlKey||o.shiftKey||(o.preventDefault(),oe(X(t)))},children:n})}const Vr=4e3;function Fr(t){const n=t.role,r=t.space?.id??null;return{admin:n==="ADMIN",manageSome:n==="ADMIN"||n==="SPACE_ADMIN",invoke:n!=="VIEWER",manage:o=>n==="ADMIN"||n==="SPACE_ADMIN"&&o!=null&&o===r}}const mn=Fn(null);function A(){const t=Gn(mn);if(t===null)throw new Error("useSession outside a signed-in console");return t}function H(t,n){const[r,o]=p({data:null,error:null,loading:!0}),[a,s]=p(0);D(()=>{let i=!0;return o(d=>({...d,loading:!0})),t().then(d=>i&&o({data:d,error:null,loading:!1}),d=>{i&&!(d instanceof it)&&o(c=>({...c,error:ee(d),loading:!1}))}),()=>{i=!1}},[...n,a]);const l=Be(()=>s(i=>i+1),[]);return{...r,reload:l}}function ee(t){return t instanceof Error?t.message:String(t)}function V(){const[t,n]=p(!1),[r,o]=p([]),a=Be(async s=>{n(!0),o([]);try{const l=await s();return o(l.userErrors),l.userErrors.length===0?l:null}catch(l){return l instanceof it||o([{field:null,code:"ERROR",message:ee(l)}]),null}finally{n(!1)}},[]);return{busy:t,errors:r,setErrors:o,run:a}}function je(t,n){const r=n.split(".");return t.filter(o=>{const a=o.field??[];return a.length>=r.length&&r.every((s,l)=>a[a.length-r.length+l]===s)})}function Q({errors:t,fields:n}){const r=t.filter(o=>n.every(a=>!je([o],a).length));return r.length?e("div",{class:"form-errors",role:"alert",children:r.map((o,a)=>e("p",{children:[o.message," ",e("span",{class:"code",children:o.code})]},a))}):null}function de({label:t,wide:n=!1,noValidate:r=!1,onSubmit:o,mutation:a,fields:s,submitLabel:l,cancel:i,notice:d,children:c}){return e("form",{class:n?"card form wide":"card form",onSubmit:o,"aria-label":t,noValidate:r,children:[c,e(Q,{errors:a.errors,fields:s}),d,e("div",{class:"buttons",children:[e("button",{type:"submit",class:"primary",disabled:a.busy,children:l}),typeof i=="string"?e(E,{class:"button",to:i,children:"Cancel"}):e("button",{type:"button",onClick:i,children:"Cancel"})]})]})}function Te({label:t,name:n,errors:r=[],hint:o,children:a}){const s=Wn(),l=je(r,n),i=[o?`${s}-hint`:"",l.length?`${s}-error`:""].filter(Boolean).join(" ");return e("div",{class:`field${l.length?" invalid":""}`,children:[e("label",{for:s,children:t}),a({id:s,"aria-invalid":l.length>0,"aria-describedby":i||void 0}),o&&e("p",{class:"hint",id:`${s}-hint`,children:o}),l.length>0&&e("p",{class:"field-error",id:`${s}-error`,role:"alert",children:l.map(d=>d.message).join(" ")})]})}function C({label:t,name:n,value:r,onInput:o,errors:a,hint:s,type:l="text",...i}){return e(Te,{label:t,name:n,errors:a,hint:s,children:d=>e("input",{...d,...i,name:n,type:l,value:r,onInput:c=>o(c.currentTarget.value)})})}function Y({label:t,name:n,value:r,onInput:o,errors:a,hint:s,rows:l=6,mono:i=!1}){return e(Te,{label:t,name:n,errors:a,hint:s,children:d=>e("textarea",{...d,class:i?"mono":void 0,name:n,rows:l,value:r,spellcheck:!i,onInput:c=>o(c.currentTarget.value)})})}function q({label:t,name:n,value:r,options:o,onChange:a,errors:s,hint:l}){return e(Te,{label:t,name:n,errors:s,hint:l,children:i=>e("select",{...i,name:n,value:o.some(([d])=>d===r)?r:o[0]?.[0],onChange:d=>a(d.currentTarget.value),children:o.map(([d,c])=>e("option",{value:d,children:c},d))})})}function me({legend:t,options:n,selected:r,onChange:o,errors:a=[],name:s}){const l=je(a,s);return e("fieldset",{class:"checkbox-group",children:[e("legend",{children:t}),n.length===0&&e("p",{class:"hint",children:"Nothing to choose from."}),n.map(i=>e("label",{class:"check",children:[e("input",{type:"checkbox",checked:r.includes(i.value),onChange:d=>o(d.currentTarget.checked?[...r,i.value]:r.filter(c=>c!==i.value))}),i.label]},i.value)),l.length>0&&e("p",{class:"field-error",role:"alert",children:l.map(i=>i.message).join(" ")})]})}function Oe(t){if(!t.trim())return{value:null,problem:null};try{return{value:JSON.parse(t),problem:null}}catch(n){return{value:null,problem:`Not valid JSON: ${ee(n)}`}}}function Ke(t){return JSON.stringify(t,null,2)}function fe({value:t,label:n}){return e("pre",{class:"json","aria-label":n,tabIndex:0,children:t==null?"—":Ke(t)})}function L({title:t,children:n}){const r=_e(null);return D(()=>{Kr()!==0&&r.current?.focus({preventScroll:!0})},[t]),e("header",{class:"page-header",children:[e("h1",{tabIndex:-1,ref:r,children:t}),n&&e("div",{class:"actions",children:n})]})}function z({error:t,retry:n}){return t?e("div",{class:"form-errors",role:"alert",children:[e("p",{children:t}),n&&e("button",{type:"button",onClick:n,children:"Try again"})]}):null}function ve({children:t}){return e("div",{class:"notice",role:"status",children:t})}function R({children:t,tone:n="plain"}){return e("span",{class:`badge ${n}`,children:t})}function G(t){return t==="ACTIVE"||t==="SUCCESS"||t==="SUCCEEDED"||t==="PRODUCTION"?"good":t==="DISABLED"||t==="FAILED"||t==="MAX_STEPS"?"bad":t==="RUNNING"||t==="CANDIDATE"||t==="QUEUED"||t==="WAITING_APPROVAL"||t==="PENDING_APPROVAL"||t==="PENDING"?"busy":"plain"}function F(t){if(!t)return"—";const n=new Date(t);return Number.isNaN(n.getTime())?t:n.toLocaleString()}function ge(t){return t==null?"—":`${t<10?t.toFixed(1):Math.round(t)} ms`}function se(t){const[n,r]=p([null]);return D(()=>r([null]),[t]),{after:n[n.length-1],page:n.length,next:a=>a&&r(s=>[...s,a]),previous:()=>r(a=>a.length>1?a.slice(0,-1):a)}}function ae({label:t,pages:n,pageSize:r,connection:o}){const{page:a,previous:s}=n,l=o.edges.length,i=o.totalCount,d=o.pageInfo.hasNextPage,c=()=>n.next(o.pageInfo.endCursor??null),h=i===0?0:(a-1)*r+1;return e("nav",{class:"pager","aria-label":`${t} pages`,children:[e("button",{type:"button",onClick:s,disabled:a<=1,children:"Previous page"}),e("span",{"aria-live":"polite",children:[h,"–",h+l-(l?1:0)," of ",i.toLocaleString()]}),e("button",{type:"button",onClick:c,disabled:!d,children:"Next page"})]})}const Ze=50,Hr=["ADMIN","SPACE_ADMIN","MEMBER","VIEWER"];function jr({sub:t}){if(t==="new")return e(fn,{tool:null});const[n,r]=t.split("/");return n&&r==="edit"?e(to,{id:decodeURIComponent(n)}):n?e(Zr,{id:decodeURIComponent(n)}):e(Wr,{})}function ne(t){return(t??[]).map(n=>[n.id,n.label])}function Z(){const{api:t}=A();return H(async()=>(await t.request(Or,{})).spaces.edges.map(({node:n})=>n),[])}function Gr(t,n){const[r,o]=p(t);return D(()=>{const a=window.setTimeout(()=>o(t),n);return()=>window.clearTimeout(a)},[t,n]),r}function ke(t){const[n,r]=p(ft(t)??"");return[n,a=>{r(a);const s=new URLSearchParams(window.location.search);a?s.set(t,a):s.delete(t);const l=s.toString();window.history.replaceState(null,"",`${window.location.pathname}${l?`?${l}`:""}`)}]}function Wr(){const{api:t,can:n}=A(),r=Z(),[o,a]=ke("search"),[s,l]=ke("type"),[i,d]=ke("status"),[c,h]=ke("binding"),[m,u]=ke("space"),_={search:Gr(o.trim(),250)||null,type:s||null,status:i||null,isGlobal:c===""?null:c==="global"},y=JSON.stringify([_,m]),b=se(y),w=H(async()=>{if(m){const v=await t.request(Lr,{spaceId:m,first:Ze,after:b.after,filter:_});if(!v.space)throw new Error(`Space ${m} is not visible to this key.`);return v.space.visibleTools}return(await t.request(xr,{first:Ze,after:b.after,filter:_})).tools},[y,b.after]),g=w.data;return e(S,{children:[e(L,{title:"Tools",children:n.manageSome&&e(E,{class:"button primary",to:"/tools/new",children:"Create tool"})}),e("form",{class:"filters",role:"search","aria-label":"Filter tools",onSubmit:v=>v.preventDefault(),children:[e(C,{label:"Search",name:"search",value:o,onInput:a,placeholder:"name, label or description"}),e(q,{label:"Type",name:"type",value:s,onChange:l,options:[["","Any type"],["BUILTIN","Builtin"],["CUSTOM","Custom (HTTP)"],["MCP","MCP"]]}),e(q,{label:"Status",name:"status",value:i,onChange:d,options:[["","Any status"],["ACTIVE","Active"],["DISABLED","Disabled"],["ARCHIVED","Archived"]]}),e(q,{label:"Space",name:"space",value:m,onChange:u,options:[["",n.admin?"Every space":"My space"],...ne(r.data)],hint:m?"Tools visible in this space.":void 0}),e(q,{label:"Binding",name:"scope",value:c,onChange:h,options:[["","Global and bound"],["global","Global only"],["bound","Bound only"]]})]}),e(z,{error:w.error,retry:w.reload}),g&&e("div",{"aria-busy":w.loading,children:[e("table",{class:"tools",children:[e("caption",{class:"sr-only",children:"Tools"}),e("thead",{children:e("tr",{children:[e("th",{scope:"col",children:"Name"}),e("th",{scope:"col",children:"Label"}),e("th",{scope:"col",children:"Type"}),e("th",{scope:"col",children:"Status"}),e("th",{scope:"col",children:"Visible in"})]})}),e("tbody",{children:g.edges.map(({node:v})=>e(zr,{tool:v},v.id))})]}),g.edges.length===0&&e("p",{class:"empty",children:"No tool matches."}),e(ae,{label:"Tools",pages:b,pageSize:Ze,connection:g})]})]})}function zr({tool:t}){return e("tr",{children:[e("td",{children:[e(E,{to:`/tools/${encodeURIComponent(t.id)}`,children:t.name}),t.driftedAt&&e(S,{children:[" ",e(R,{tone:"bad",children:"drifted"})]})]}),e("td",{children:t.label}),e("td",{children:e(R,{children:t.type})}),e("td",{children:e(R,{tone:G(t.status),children:t.status})}),e("td",{children:Jr(t)})]})}function Jr(t){if(t.isGlobal)return t.mcpServer?"every space (server is global)":"every space (global)";const n=t.boundSpaces.map(r=>r.name).join(", ");return t.mcpServer?`spaces of server ${t.mcpServer.name}`:n||"bound"}function Zr({id:t}){const{api:n}=A(),r=H(()=>n.request(un,{id:t}),[t]),o=r.data?.tool,a=new URLSearchParams(window.location.search).get("saved");return r.data&&!o?e(S,{children:[e(L,{title:"Tool not found"}),e("p",{children:["No tool ",e("code",{children:t})," is visible to this key. ",e(E,{to:"/tools",children:"Back to Tools"})]})]}):e(S,{children:[e(L,{title:o?`Tool ${o.name}`:"Tool",children:[e(E,{class:"button",to:"/tools",children:"All tools"}),o?.type==="CUSTOM"&&o.viewerCanManage&&e(E,{class:"button",to:`/tools/${encodeURIComponent(o.id)}/edit`,children:"Edit tool"})]}),e(z,{error:r.error,retry:r.reload}),a&&e(ve,{children:["Tool ",a==="created"?"created":"saved","."]}),o&&e(S,{children:[e(Yr,{tool:o,onChanged:r.reload}),e("section",{"aria-labelledby":"tool-definition",children:[e("h2",{id:"tool-definition",children:"Definition"}),e("dl",{class:"facts",children:[e("dt",{children:"Label"}),e("dd",{children:o.label}),e("dt",{children:"Id"}),e("dd",{children:e("code",{children:o.id})}),e("dt",{children:"Type"}),e("dd",{children:o.type}),e("dt",{children:"Description"}),e("dd",{class:"prose",children:o.description}),o.endpoint&&e(S,{children:[e("dt",{children:"Endpoint"}),e("dd",{children:e("code",{children:o.endpoint})})]}),e("dt",{children:"Credentials"}),e("dd",{children:o.authType==="NONE"?"none":`${o.authType} (secret stored, never shown)`}),e("dt",{children:"Side effect"}),e("dd",{children:o.sideEffect}),e("dt",{children:"Version"}),e("dd",{children:o.version}),e("dt",{children:"Owner"}),e("dd",{children:o.owner??"—"}),e("dt",{children:"Tags"}),e("dd",{children:o.tags.length?o.tags.join(", "):"—"}),e("dt",{children:"Group"}),e("dd",{children:o.group??"—"}),o.driftedAt&&e(S,{children:[e("dt",{children:"Drift"}),e("dd",{children:[e(R,{tone:"bad",children:"drifted"})," the MCP server changed its description or schema on ",F(o.driftedAt),". Re-activating the tool accepts the change."]})]})]})]}),e("section",{"aria-labelledby":"tool-policies",children:[e("h2",{id:"tool-policies",children:"Policies"}),e("dl",{class:"facts",children:[e("dt",{children:"Timeout"}),e("dd",{children:[o.timeoutMs.toLocaleString()," ms per attempt"]}),e("dt",{children:"Retries"}),e("dd",{children:[o.maxRetries," ",o.sideEffect==="WRITE"?"(only with an idempotency key)":""]}),e("dt",{children:"Allowed roles"}),e("dd",{children:o.allowedRoles.length?o.allowedRoles.join(", "):"every role"})]})]}),e(Xr,{tool:o,onChanged:r.reload}),e("section",{"aria-labelledby":"tool-stats",children:[e("h2",{id:"tool-stats",children:"Calls"}),e("dl",{class:"facts",children:[e("dt",{children:"Calls"}),e("dd",{children:o.stats.calls.toLocaleString()}),e("dt",{children:"Failures"}),e("dd",{children:o.stats.failures.toLocaleString()}),e("dt",{children:"p50 latency"}),e("dd",{children:ge(o.stats.p50LatencyMs)}),e("dt",{children:"p95 latency"}),e("dd",{children:ge(o.stats.p95LatencyMs)}),e("dt",{children:"Last call"}),e("dd",{children:F(o.stats.lastCalledAt)})]}),e(Qr,{value:o.stats.failuresByCode})]}),e("section",{"aria-labelledby":"tool-schemas",children:[e("h2",{id:"tool-schemas",children:"Schemas"}),e("h3",{children:"Input schema"}),e(fe,{label:"Input schema",value:o.inputSchema}),e("h3",{children:"Output schema"}),e(fe,{label:"Output schema",value:o.outputSchema})]}),e(eo,{tool:o})]})]})}function Qr({value:t}){const n=t&&typeof t=="object"?Object.entries(t):[];return n.length?e("table",{class:"compact",children:[e("caption",{children:"Failures by code"}),e("thead",{children:e("tr",{children:[e("th",{scope:"col",children:"Code"}),e("th",{scope:"col",children:"Failures"})]})}),e("tbody",{children:n.map(([r,o])=>e("tr",{children:[e("td",{children:e("code",{children:r})}),e("td",{children:o})]},r))})]}):e("p",{class:"muted",children:"No failures."})}function Yr({tool:t,onChanged:n}){const{api:r}=A(),o=V(),a=async s=>{await o.run(async()=>(await r.request(ht,{input:{id:t.id,status:s}})).setStatus)&&n()};return e("div",{class:"status-line",children:[e("span",{children:["Status ",e(R,{tone:G(t.status),children:t.status})]}),t.viewerCanManage&&t.status!=="ACTIVE"&&e("button",{type:"button",onClick:()=>a("ACTIVE"),disabled:o.busy,children:t.driftedAt?"Re-activate tool":"Enable tool"}),t.viewerCanManage&&t.status==="ACTIVE"&&e("button",{type:"button",onClick:()=>a("DISABLED"),disabled:o.busy,children:"Disable tool"}),e(Q,{errors:o.errors,fields:[]})]})}function Xr({tool:t,onChanged:n}){const{api:r,can:o}=A(),a=Z(),s=t.mcpServer,l=(s?s.boundSpaces:t.boundSpaces).map(y=>y.id),[i,d]=p(l);D(()=>d(l),[l.join(",")]);const c=V(),[h,m]=p(!1),u=s?s.isGlobal:t.isGlobal,f=async y=>{y.preventDefault(),m(!1),await c.run(async()=>(await r.request(Ur,{input:{id:s?s.id:t.id,spaceIds:i}})).setSpaceBindings)&&(m(!0),n())},_=(s?s.boundSpaces:t.boundSpaces).map(y=>y.label).join(", ");return e("section",{"aria-labelledby":"tool-bindings",children:[e("h2",{id:"tool-bindings",children:"Bindings"}),e("p",{children:[u?e(S,{children:[e(R,{children:"global"})," no binding row: every space sees this tool"]}):e(S,{children:[e(R,{tone:"busy",children:"bound"})," only these spaces see it: ",_]}),s&&e(S,{children:[" ","— inherited from MCP server ",e("strong",{children:s.name})]}),"."]}),o.admin&&e("form",{class:"card form",onSubmit:f,"aria-label":s?`Bindings of MCP server ${s.name}`:"Bindings",children:[e(me,{legend:s?`Spaces bound to MCP server ${s.name}`:"Bound spaces (none checked: global)",name:"spaceIds",options:(a.data??[]).map(y=>({value:y.id,label:`${y.label} (${y.name})`})),selected:i,onChange:d,errors:c.errors}),e(Q,{errors:c.errors,fields:["spaceIds"]}),e("div",{class:"buttons",children:[e("button",{type:"submit",disabled:c.busy,children:"Save bindings"}),h&&e("span",{role:"status",children:"Bindings saved."})]})]})]})}function eo({tool:t}){const{api:n,can:r,viewer:o}=A(),a=Z(),[s,l]=p(o.space?.id??""),[i,d]=p("{}"),[c,h]=p(null),[m,u]=p(null),[f,_]=p(!1);if(!r.invoke||t.status!=="ACTIVE")return null;const y=ne(a.data);return e("section",{"aria-labelledby":"tool-try",children:[e("h2",{id:"tool-try",children:"Try it"}),e("form",{class:"card form",onSubmit:async w=>{w.preventDefault();const g=Oe(i);if(g.problem){u(g.problem);return}_(!0),u(null);try{const v=await n.request(Br,{input:{spaceId:s||y[0]?.[0]||"",toolId:t.id,arguments:g.value??{}}});h(v.invokeTool)}catch(v){u(ee(v))}finally{_(!1)}},children:[r.admin&&e(q,{label:"Call in space",name:"spaceId",value:s,onChange:l,options:y}),e(Te,{label:"Arguments (JSON)",name:"arguments",errors:m?[{field:["arguments"],code:"JSON",message:m}]:[],children:w=>e("textarea",{...w,class:"mono",rows:4,value:i,onInput:g=>d(g.currentTarget.value)})}),e("div",{class:"buttons",children:e("button",{type:"submit",disabled:f,children:"Call tool"})})]}),c&&e("div",{class:"result",role:"status",children:[e("p",{children:[e(R,{tone:G(c.status),children:c.status})," in ",ge(c.latencyMs)," · trace ",e("code",{children:c.traceId})]}),c.error?e("p",{children:[e("code",{children:c.error.code})," ",c.error.message]}):e(fe,{label:"Result",value:c.data})]})]})}function to({id:t}){const{api:n}=A(),r=H(()=>n.request(un,{id:t}),[t]);return r.error?e(z,{error:r.error,retry:r.reload}):r.data?r.data.tool?e(fn,{tool:r.data.tool}):e("p",{children:["No tool ",t," is visible to this key."]}):e("p",{"aria-busy":"true",children:"Loading…"})}const no=[["NONE","None"],["BEARER","Bearer token"],["API_KEY","API key header"],["HEADER","Custom header"],["OAUTH_CLIENT_CREDENTIALS","OAuth client credentials"]],ro=Ke({type:"object",properties:{orderId:{type:"string",description:"The order number."}},required:["orderId"]});function Ut(t,n){const r=Oe(t);return r.problem?r.problem:r.value===null?n?"An input schema is required.":null:typeof r.value!="object"||Array.isArray(r.value)?"A JSON Schema is a JSON object.":n&&r.value.type!=="object"?'The input schema must have "type": "object".':null}function fn({tool:t}){const{api:n,can:r,viewer:o}=A(),a=Z(),s=t===null,[l,i]=p(t?.name??""),[d,c]=p(t?.label??""),[h,m]=p(t?.description??""),[u,f]=p(t?Ke(t.inputSchema):ro),[_,y]=p(t?.outputSchema?Ke(t.outputSchema):""),[b,w]=p(t?.endpoint??""),[g,v]=p(t?.authType??"NONE"),[k,T]=p(""),[U,W]=p(""),[$,P]=p(""),[N,j]=p(""),[le,J]=p(t?.sideEffect??"READ"),[ie,gt]=p(t?String(t.timeoutMs):""),[be,B]=p(t?String(t.maxRetries):""),[Se,ue]=p(t?.tags.join(", ")??""),[bt,wn]=p(t?.group??""),[_t,In]=p(t?.allowedRoles??[]),[yt,kn]=p(t?.version??""),[vt,Cn]=p(t?.owner??""),[Ge,An]=p(!r.admin&&o.space?[o.space.id]:[]),Ee=V(),St=ye(()=>Ut(u,!0),[u]),wt=ye(()=>Ut(_,!1),[_]);if(!r.manageSome)return e("p",{children:"This key cannot create or change tools."});const We=[...St?[{field:["input","inputSchema"],code:"INVALID_JSON",message:St}]:[],...wt?[{field:["input","outputSchema"],code:"INVALID_JSON",message:wt}]:[]],O=[...We,...Ee.errors.filter(te=>!We.some(Re=>Re.field.join()===te.field?.join()))],$n=s||g!==t?.authType||U!==""||k!==""||$!==""||N!=="",Tn=async te=>{if(te.preventDefault(),We.length)return;const Re=$n?{type:g,headerName:k||null,secret:U||null,tokenUrl:$||null,clientId:N||null}:null,It={label:d,description:h,inputSchema:Oe(u).value,outputSchema:Oe(_).value,endpoint:b,sideEffect:le,timeoutMs:ie?Number(ie):null,maxRetries:be?Number(be):null,tags:Se.split(",").map(we=>we.trim()).filter(Boolean),group:bt||(s?null:""),allowedRoles:_t,version:yt||null,owner:vt||(s?null:"")};if(s){const we={...It,name:l,auth:Re,spaceIds:Ge.length?Ge:null},Ie=await Ee.run(async()=>(await n.request(Mr,{input:we})).createTool);Ie?.tool&&oe(X(`/tools/${encodeURIComponent(Ie.tool.id)}?saved=created`))}else{const we={...It,id:t.id,auth:Re},Ie=await Ee.run(async()=>(await n.request(qr,{input:we})).updateTool);Ie?.tool&&oe(X(`/tools/${encodeURIComponent(Ie.tool.id)}?saved=updated`))}W("")},En=["name","label","description","inputSchema","outputSchema","endpoint","auth","auth.type","auth.headerName","auth.secret","auth.tokenUrl","auth.clientId","sideEffect","timeoutMs","maxRetries","tags","group","allowedRoles","version","owner","spaceIds"];return e(S,{children:[e(L,{title:s?"Create tool":`Edit tool ${t.name}`}),e(de,{wide:!0,noValidate:!0,onSubmit:Tn,mutation:Ee,fields:En,submitLabel:s?"Create tool":"Save tool",cancel:s?"/tools":`/tools/${encodeURIComponent(t.id)}`,children:[e("p",{class:"hint",children:"A CUSTOM tool is an HTTP endpoint Quiver POSTs the arguments to, with the stored credentials."}),s?e(C,{label:"Name",name:"name",value:l,onInput:i,errors:O,hint:"For the model: ^[a-zA-Z0-9_-]{1,64}$, unique where it is visible."}):e("p",{children:["Name ",e("code",{children:t.name})," (fixed)"]}),e(C,{label:"Label",name:"label",value:d,onInput:c,errors:O}),e(Y,{label:"Description",name:"description",value:h,onInput:m,errors:O,rows:3,hint:"Written for the model: what it does, when to use it, when not to."}),e(C,{label:"Endpoint",name:"endpoint",value:b,onInput:w,errors:O,type:"url",placeholder:"https://…"}),e(Y,{label:"Input schema",name:"inputSchema",value:u,onInput:f,errors:O,rows:10,mono:!0,hint:'JSON Schema 2020-12 of the arguments, with "type": "object".'}),e(Y,{label:"Output schema",name:"outputSchema",value:_,onInput:y,errors:O,rows:5,mono:!0,hint:"Optional JSON Schema of the result."}),e("fieldset",{children:[e("legend",{children:"Credentials"}),!s&&t.authType!=="NONE"&&e("p",{class:"hint",children:["A ",t.authType," secret is stored and never shown. Leave these fields alone to keep it; credentials are replaced as a whole."]}),e(q,{label:"Authentication",name:"auth.type",value:g,onChange:v,options:no,errors:O}),(g==="API_KEY"||g==="HEADER")&&e(C,{label:"Header name",name:"auth.headerName",value:k,onInput:T,errors:O}),g==="OAUTH_CLIENT_CREDENTIALS"&&e(S,{children:[e(C,{label:"Token URL",name:"auth.tokenUrl",value:$,onInput:P,errors:O,type:"url"}),e(C,{label:"Client id",name:"auth.clientId",value:N,onInput:j,errors:O})]}),g!=="NONE"&&e(C,{label:"Secret",name:"auth.secret",value:U,onInput:W,errors:O,type:"password",autoComplete:"new-password",hint:s?"Write-only: stored encrypted, never shown again.":"Write-only: type a new secret to replace the stored one."})]}),e("fieldset",{children:[e("legend",{children:"Policies"}),e(q,{label:"Side effect",name:"sideEffect",value:le,onChange:J,errors:O,options:[["READ","READ (safe to retry)"],["WRITE","WRITE (retried only with an idempotency key)"]]}),e(C,{label:"Timeout (ms)",name:"timeoutMs",value:ie,onInput:gt,errors:O,type:"number",placeholder:"10000"}),e(C,{label:"Max retries",name:"maxRetries",value:be,onInput:B,errors:O,type:"number",placeholder:"1"}),e(me,{legend:"Allowed roles (none checked: every role)",name:"allowedRoles",options:Hr.map(te=>({value:te,label:te})),selected:_t,onChange:In,errors:O})]}),e("fieldset",{children:[e("legend",{children:"Catalog"}),e(C,{label:"Tags",name:"tags",value:Se,onInput:ue,errors:O,hint:"Comma-separated."}),e(C,{label:"Group",name:"group",value:bt,onInput:wn,errors:O}),e(C,{label:"Version",name:"version",value:yt,onInput:kn,errors:O,placeholder:"1.0.0"}),e(C,{label:"Owner",name:"owner",value:vt,onInput:Cn,errors:O})]}),s&&r.admin&&e(me,{legend:"Bind to spaces (none checked: global)",name:"spaceIds",options:(a.data??[]).map(te=>({value:te.id,label:`${te.label} (${te.name})`})),selected:Ge,onChange:An,errors:O})]})]})}const Bt=50;function oo({sub:t}){return t==="new"?e(gn,{agent:null}):t?e(ao,{id:decodeURIComponent(t)}):e(so,{})}function so(){const{api:t,can:n}=A(),r=se("agents"),o=H(()=>t.request(Zn,{first:Bt,after:r.after}),[r.after]),a=o.data?.agents;return e(S,{children:[e(L,{title:"Agents",children:n.manageSome&&e(E,{class:"button primary",to:"/agents/new",children:"Create agent"})}),e(z,{error:o.error,retry:o.reload}),a&&e(S,{children:[e("table",{children:[e("caption",{class:"sr-only",children:"Agents"}),e("thead",{children:e("tr",{children:[e("th",{scope:"col",children:"Name"}),e("th",{scope:"col",children:"Space"}),e("th",{scope:"col",children:"Model"}),e("th",{scope:"col",children:"Status"}),e("th",{scope:"col",children:"Changed"})]})}),e("tbody",{children:a.edges.map(({node:s})=>e("tr",{children:[e("td",{children:e(E,{to:`/agents/${encodeURIComponent(s.id)}`,children:s.name})}),e("td",{children:s.space.name}),e("td",{children:e("code",{children:s.model})}),e("td",{children:e(R,{tone:G(s.status),children:s.status})}),e("td",{children:F(s.updatedAt)})]},s.id))})]}),a.edges.length===0&&e("p",{class:"empty",children:"No agent yet."}),e(ae,{label:"Agents",pages:r,pageSize:Bt,connection:a})]})]})}function ao({id:t}){const{api:n,can:r}=A(),o=H(()=>n.request(Qn,{id:t}),[t]),a=o.data?.agent,[s,l]=p(!1);if(o.data&&!a)return e(S,{children:[e(L,{title:"Agent not found"}),e("p",{children:["No agent ",e("code",{children:t})," is visible to this key. ",e(E,{to:"/agents",children:"Back to Agents"})]})]});const i=a?r.manage(a.space.id):!1;return e(S,{children:[e(L,{title:a?`Agent ${a.name}`:"Agent",children:[e(E,{class:"button",to:"/agents",children:"All agents"}),i&&!s&&e("button",{type:"button",onClick:()=>l(!0),children:"Edit manifest"})]}),e(z,{error:o.error,retry:o.reload}),a&&s&&e(gn,{agent:a,onSaved:()=>{l(!1),o.reload()},onCancel:()=>l(!1)}),a&&!s&&e(S,{children:[e("dl",{class:"facts",children:[e("dt",{children:"Space"}),e("dd",{children:a.space.name}),e("dt",{children:"Model"}),e("dd",{children:e("code",{children:a.model})}),e("dt",{children:"Status"}),e("dd",{children:e(R,{tone:G(a.status),children:a.status})}),e("dt",{children:"Max steps"}),e("dd",{children:a.maxSteps}),e("dt",{children:"Knowledge bases"}),e("dd",{children:a.mountedKnowledgeBases.map(d=>d.name).join(", ")||"—"}),e("dt",{children:"Tools"}),e("dd",{children:a.activatedTools.map(d=>d.name).join(", ")||"—"}),e("dt",{children:"Skills"}),e("dd",{children:a.boundSkillReferences.join(", ")||"—"}),e("dt",{children:"System prompt"}),e("dd",{class:"prose",children:a.systemPrompt}),e("dt",{children:"Output format"}),e("dd",{class:"prose",children:a.outputFormat??"—"})]}),e(io,{agentId:a.id}),r.invoke&&a.status==="ACTIVE"&&e(co,{agentId:a.id,onFinished:o.reload}),e(uo,{agent:a})]})]})}function lo(t){return t.split(/[\n,]/).map(n=>n.trim()).filter(Boolean)}function gn({agent:t,onSaved:n,onCancel:r}){const{api:o,can:a,viewer:s}=A(),l=Z(),[i,d]=p(t?.space.id??s.space?.id??""),[c,h]=p(t?.name??""),[m,u]=p(t?.model??""),[f,_]=p(t?.systemPrompt??""),[y,b]=p(String(t?.maxSteps??5)),[w,g]=p(t?.outputFormat??""),[v,k]=p(t?.mountedKnowledgeBases.map(B=>B.id)??[]),[T,U]=p(t?.activatedTools.map(B=>B.id)??[]),[W,$]=p(t?.boundSkillReferences.join(`
`)??""),[P,N]=p([]),j=i||l.data?.find(B=>!B.isSystem)?.id||"",le=H(async()=>j?(await o.request(Yn,{spaceId:j})).space:null,[j]),J=V();if(!a.manageSome)return e("p",{children:"This key cannot create or change agents."});const ie=le.data,be=e(de,{label:"Agent manifest",wide:!0,onSubmit:async B=>{B.preventDefault();const Se={name:c,model:m,systemPrompt:f,maxSteps:Number(y)||null,outputFormat:w||(t?"":null),mountedKnowledgeBaseIds:v,activatedToolIds:T,boundSkillIds:lo(W)};if(t){const ue=await J.run(async()=>(await o.request(er,{input:{id:t.id,...Se}})).updateAgent);ue&&(N(ue.notices),n?.())}else{const ue=await J.run(async()=>(await o.request(Xn,{input:{...Se,spaceId:j,maxSteps:Number(y)||5}})).createAgent);ue?.agent&&oe(X(`/agents/${encodeURIComponent(ue.agent.id)}`))}},mutation:J,fields:["spaceId","name","model","systemPrompt","maxSteps","outputFormat","mountedKnowledgeBaseIds","activatedToolIds","boundSkillIds"],submitLabel:t?"Save manifest":"Create agent",cancel:t&&r?r:"/agents",notice:P.length>0&&e(ve,{children:e("ul",{class:"plain",children:P.map(B=>e("li",{children:B},B))})}),children:[!t&&a.admin&&e(q,{label:"Space",name:"spaceId",value:j,onChange:d,errors:J.errors,options:ne(l.data)}),e(C,{label:"Name",name:"name",value:c,onInput:h,errors:J.errors}),e(C,{label:"Model",name:"model",value:m,onInput:u,errors:J.errors,hint:"The model name sent to the OpenAI-compatible endpoint."}),e(Y,{label:"System prompt",name:"systemPrompt",value:f,onInput:_,errors:J.errors,rows:6}),e(C,{label:"Max steps",name:"maxSteps",value:y,onInput:b,errors:J.errors,type:"number"}),e(Y,{label:"Output format",name:"outputFormat",value:w,onInput:g,errors:J.errors,rows:2}),ie&&e(S,{children:[e(me,{legend:"Knowledge bases",name:"mountedKnowledgeBaseIds",options:ie.knowledgeBases.edges.map(({node:B})=>({value:B.id,label:B.label})),selected:v,onChange:k,errors:J.errors}),e(me,{legend:"Tools",name:"activatedToolIds",options:ie.visibleTools.edges.map(({node:B})=>({value:B.id,label:`${B.name} — ${B.label}`})),selected:T,onChange:U,errors:J.errors}),e(Y,{label:"Skills",name:"boundSkillIds",value:W,onInput:$,errors:J.errors,rows:3,mono:!0,hint:`One skill id a line; pin a version with @, e.g. sk_email_draft@1.2.0. Visible here: ${ie.skills.edges.map(({node:B})=>B.id).join(", ")||"none"}.`})]})]});return t?be:e(S,{children:[e(L,{title:"Create agent"}),be]})}function io({agentId:t}){const{api:n}=A(),[r,o]=p(""),[a,s]=p(null),[l,i]=p(null),d=async h=>{h.preventDefault(),i(null);try{s((await n.request(tr,{agentId:t,message:r||"(preview)"})).previewPrompt)}catch(m){i(ee(m))}},c=a?Math.min(100,Math.round(a.charCount/Math.max(1,a.budgetChars)*100)):0;return e("section",{"aria-labelledby":"preview-title",children:[e("h2",{id:"preview-title",children:"Prompt preview"}),e("form",{class:"filters",onSubmit:d,"aria-label":"Preview the prompt",children:[e(C,{label:"Message to assemble for",name:"previewMessage",value:r,onInput:o}),e("button",{type:"submit",children:"Preview prompt"})]}),l&&e("p",{role:"alert",children:l}),a&&e("div",{children:[e("p",{children:[a.charCount.toLocaleString()," of ",a.budgetChars.toLocaleString()," characters (",c,"% of the budget), about"," ",a.tokenEstimate.toLocaleString()," tokens."]}),e("meter",{min:0,max:a.budgetChars,value:a.charCount,"aria-label":"Prompt budget used"}),a.warnings.map(h=>e("p",{class:"error-text",children:h},h)),e("ol",{class:"sections",children:a.sections.map((h,m)=>e("li",{class:"card",children:[e("p",{children:[e(R,{children:h.kind})," ",h.source&&e("code",{children:h.source})," ",h.truncated&&e(R,{tone:"bad",children:"cut to fit"})]}),h.reason&&e("p",{class:"muted",children:h.reason}),e("pre",{class:"json",children:h.text})]},m))})]})]})}function co({agentId:t,onFinished:n}){const{api:r}=A(),[o,a]=p(""),[s,l]=p([]),[i,d]=p(null),[c,h]=p(""),m=V(),u=_e(null);D(()=>()=>u.current?.(),[]);const[f,_]=p("connecting");D(()=>r.onSocketState(_),[r]);const y=_e(!1),b=i?.id??null,w=i?.status==="RUNNING";return D(()=>{f==="reconnecting"&&(y.current=!0),!(f!=="connected"||!y.current||b===null)&&(y.current=!1,r.request(Mt,{id:b}).then(v=>{const k=v.agentRun;!k||k.id!==b||(d(k),k.status!=="RUNNING"&&(u.current?.(),u.current=null,n()))},()=>{}))},[r,f,b,n]),e("section",{"aria-labelledby":"invoke-title",children:[e("h2",{id:"invoke-title",children:"Run the agent"}),e("form",{class:"card form",onSubmit:async v=>{v.preventDefault(),u.current?.(),l([]),h(""),d(null);const T=(await m.run(async()=>(await r.request(nr,{input:{agentId:t,message:o,async:!0}})).invokeAgent))?.run;T&&(d(T),u.current=r.subscribe(rr,{runId:T.id},{next:U=>{const W=U.agentRunEvents;l($=>[...$,W]),W.delta&&h($=>$+W.delta),W.kind==="FINISHED"&&(r.request(Mt,{id:T.id}).then($=>$.agentRun&&d($.agentRun),()=>{}),n())},error:U=>m.setErrors([{field:null,code:"STREAM",message:U.message}])}))},children:[e(Y,{label:"Message",name:"message",value:o,onInput:a,errors:m.errors,rows:3}),e(Q,{errors:m.errors,fields:["message"]}),e("button",{type:"submit",class:"primary",disabled:m.busy,children:"Run agent"})]}),i&&e("div",{class:"card",children:[e("p",{children:["Run ",e("code",{children:i.id})," ",e(R,{tone:G(i.status),children:i.status})]}),w&&f!=="connected"&&e("p",{class:"muted",role:"status",children:f==="reconnecting"?"Reconnecting… the run goes on on the server; it is read again when the connection is back.":"Connecting…"}),e("ol",{class:"events","aria-label":"Run events","aria-live":"polite",children:s.map((v,k)=>e("li",{children:[e(R,{children:v.kind})," ",e("span",{class:"muted",children:F(v.at)}),v.step!==null&&v.step!==void 0&&e(S,{children:[" step ",v.step]}),v.toolId&&e(S,{children:[" ","tool ",e("code",{children:v.toolId})]}),v.toolCall&&e(S,{children:[" ",e(R,{tone:G(v.toolCall.status),children:v.toolCall.status})," ",ge(v.toolCall.latencyMs)]}),v.kind==="FINISHED"&&v.run.error&&e(S,{children:[" ",v.run.error.message]})]},k))}),(i.output||c)&&e(S,{children:[e("h3",{children:"Answer"}),e("p",{class:"prose answer",children:i.output??c})]}),i.error&&e("p",{class:"error-text",children:i.error.message})]})]})}function uo({agent:t}){const n=t.runs.edges.map(({node:o})=>o),r=ft("run");return e("section",{"aria-labelledby":"runs-title",children:[e("h2",{id:"runs-title",children:["Run history (",t.runs.totalCount,")"]}),n.length===0&&e("p",{class:"empty",children:"No run yet."}),n.map(o=>e("details",{id:o.id,class:"card run",open:o.id===r,children:[e("summary",{children:[e(R,{tone:G(o.status),children:o.status})," ",F(o.startedAt)," — ",o.input.slice(0,80)]}),e("dl",{class:"facts",children:[e("dt",{children:"Run"}),e("dd",{children:e("code",{children:o.id})}),e("dt",{children:"Steps"}),e("dd",{children:o.steps}),e("dt",{children:"Tokens"}),e("dd",{children:[o.promptTokens??"—"," in, ",o.completionTokens??"—"," out"]}),e("dt",{children:"Answer"}),e("dd",{class:"prose",children:o.output??o.error?.message??"—"})]}),e("table",{class:"compact",children:[e("caption",{children:"Tool calls"}),e("thead",{children:e("tr",{children:[e("th",{scope:"col",children:"Tool"}),e("th",{scope:"col",children:"Status"}),e("th",{scope:"col",children:"Latency"}),e("th",{scope:"col",children:"Arguments"})]})}),e("tbody",{children:o.toolCalls.map(a=>e("tr",{children:[e("td",{children:e("code",{children:a.toolId})}),e("td",{children:[e(R,{tone:G(a.status),children:a.status})," ",a.error?.code]}),e("td",{children:ge(a.latencyMs)}),e("td",{children:e(fe,{label:`Arguments of ${a.id}`,value:a.arguments})})]},a.id))})]})]},o.id))]})}const Ot=50;function po(t){return t==="ACTIVE"?"good":"bad"}function ho(){const{api:t,can:n,viewer:r}=A(),[o,a]=p("ACTIVE"),[s,l]=p(!1),[i,d]=p(null),c=se(o),h=H(()=>t.request(or,{first:Ot,after:c.after,state:o||null}),[o,c.after]),m=h.data?.apiKeys;return e(S,{children:[e(L,{title:"API keys",children:n.manageSome&&!s&&e("button",{type:"button",class:"primary",onClick:()=>l(!0),children:"Create API key"})}),e("dl",{class:"facts",children:[e("dt",{children:"Signed in with"}),e("dd",{children:[e("code",{children:r.keyId})," ",r.keyLabel?`“${r.keyLabel}”`:""," (",r.role,")"]})]}),!n.manageSome&&e("p",{children:"Only ADMIN and SPACE_ADMIN keys manage keys; ask one of them for another key."}),s&&e(fo,{onDone:u=>{l(!1),u&&(d(u),h.reload())}}),i&&e("div",{class:"notice secret",role:"status",children:[e("p",{children:["Key ",e("code",{children:i.id})," created. Copy its secret now: it is shown only this once and is not stored."]}),e("label",{for:"new-secret",children:"Secret"}),e("input",{id:"new-secret",readOnly:!0,value:i.secret,onFocus:u=>u.currentTarget.select()}),e("div",{class:"buttons",children:[e("button",{type:"button",onClick:()=>{navigator.clipboard?.writeText(i.secret)},children:"Copy secret"}),e("button",{type:"button",onClick:()=>d(null),children:"Done"})]})]}),n.manageSome&&e(S,{children:[e("form",{class:"filters","aria-label":"Filter keys",onSubmit:u=>u.preventDefault(),children:e(q,{label:"State",name:"state",value:o,onChange:a,options:[["","Any state"],["ACTIVE","Active"],["EXPIRED","Expired"],["REVOKED","Revoked"]]})}),e(z,{error:h.error,retry:h.reload}),m&&e(S,{children:[e("table",{children:[e("caption",{class:"sr-only",children:"API keys"}),e("thead",{children:e("tr",{children:[e("th",{scope:"col",children:"Label"}),e("th",{scope:"col",children:"Id"}),e("th",{scope:"col",children:"Role"}),e("th",{scope:"col",children:"Space"}),e("th",{scope:"col",children:"Created"}),e("th",{scope:"col",children:"Expires"}),e("th",{scope:"col",children:"Last used"}),e("th",{scope:"col",children:"State"}),e("th",{scope:"col",children:"Action"})]})}),e("tbody",{children:m.edges.map(({node:u})=>e(mo,{apiKey:u,isCurrent:u.id===r.keyId,onChanged:h.reload},u.id))})]}),m.edges.length===0&&e("p",{class:"empty",children:"No key in this state."}),e(ae,{label:"API keys",pages:c,pageSize:Ot,connection:m})]})]})]})}function mo({apiKey:t,isCurrent:n,onChanged:r}){const{api:o}=A(),[a,s]=p(!1),l=V(),i=t.label??t.id,d=async()=>{const c=await l.run(async()=>(await o.request(ar,{input:{id:t.id}})).revokeApiKey);s(!1),c&&r()};return e("tr",{children:[e("td",{children:[t.label??"—"," ",n&&e(R,{tone:"busy",children:"in use here"})]}),e("td",{children:e("code",{children:t.id})}),e("td",{children:t.role}),e("td",{children:t.space?.name??"every space"}),e("td",{children:F(t.createdAt)}),e("td",{children:F(t.expiresAt)}),e("td",{children:F(t.lastUsedAt)}),e("td",{children:e(R,{tone:po(t.state),children:t.state})}),e("td",{children:[t.state==="ACTIVE"&&(a?e("div",{class:"buttons",children:[e("span",{children:[n?"This signs the console out. ":"","Revoke?"]}),e("button",{type:"button",class:"danger",onClick:d,disabled:l.busy,children:["Confirm revoke ",i]}),e("button",{type:"button",onClick:()=>s(!1),children:"Keep"})]}):e("button",{type:"button",onClick:()=>s(!0),"aria-label":`Revoke ${i}`,children:"Revoke"})),e(Q,{errors:l.errors,fields:[]})]})]})}function fo({onDone:t}){const{api:n,can:r,viewer:o}=A(),a=Z(),s=r.admin?["ADMIN","SPACE_ADMIN","MEMBER","VIEWER"]:["SPACE_ADMIN","MEMBER","VIEWER"],[l,i]=p("MEMBER"),[d,c]=p(o.space?.id??""),[h,m]=p(""),[u,f]=p(""),_=V(),y=a.data?.[0]?.id??"";return e(de,{label:"Create API key",onSubmit:async w=>{w.preventDefault();const g=await _.run(async()=>(await n.request(sr,{input:{role:l,spaceId:l==="ADMIN"?null:d||y||null,label:h||null,expiresAt:u?new Date(u).toISOString():null}})).createApiKey);g?.apiKey&&g.secret&&t({id:g.apiKey.id,secret:g.secret})},mutation:_,fields:["role","spaceId","label","expiresAt"],submitLabel:"Create key",cancel:()=>t(null),children:[e(q,{label:"Role",name:"role",value:l,onChange:i,errors:_.errors,options:s.map(w=>[w,w])}),r.admin&&l!=="ADMIN"&&e(q,{label:"Space",name:"spaceId",value:d,onChange:c,errors:_.errors,options:ne(a.data)}),e(C,{label:"Label",name:"label",value:h,onInput:m,errors:_.errors,hint:"A note to recognise the key by."}),e(C,{label:"Expires",name:"expiresAt",value:u,onInput:f,errors:_.errors,type:"datetime-local",hint:"Your local time; empty: never."})]})}const Kt=3e3,go=3e4,bo=1e4,_o=2e3,Qe=50,bn="quiver.approvals.space",st="quiver:approvals-space",at="quiver:approvals-count";function Ve(){return window.localStorage.getItem(bn)??""}function yo(t){Ve()!==t&&(window.localStorage.setItem(bn,t),window.dispatchEvent(new Event(st)))}function vo(t){window.dispatchEvent(new CustomEvent(at,{detail:t}))}function _n(){const[t,n]=p(()=>document.visibilityState==="visible");return D(()=>{const r=()=>n(document.visibilityState==="visible");return document.addEventListener("visibilitychange",r),()=>document.removeEventListener("visibilitychange",r)},[]),t}function So(t,n){const r=_n(),[o,a]=p(!1);D(()=>{if(!r){a(!0);return}o&&(a(!1),t());const s=window.setInterval(t,n);return()=>window.clearInterval(s)},[r,t,n,o])}function wo(t,n){const{api:r}=A(),[o,a]=p("connecting"),[s,l]=p(!1);D(()=>r.onSocketState(a),[r]);const i=o==="connected";return D(()=>{if(t)return l(!1),r.subscribe(ur,{spaceId:t},{next:()=>n(),error:()=>l(!0),complete:()=>l(!0)})},[r,t,n]),D(()=>{i&&n()},[i,n]),!!t&&i&&!s}function Io(t){const[n,r]=p(()=>Date.now());return D(()=>{const o=window.setInterval(()=>r(Date.now()),t);return()=>window.clearInterval(o)},[t]),n}function Vt(t){const n=Math.max(0,Math.floor(t/1e3));if(n<60)return`${n} s`;const r=Math.floor(n/60);if(r<60)return`${r} min`;const o=Math.floor(r/60);if(o<24)return r%60?`${o} h ${r%60} min`:`${o} h`;const a=Math.floor(o/24);return o%24?`${a} d ${o%24} h`:`${a} d`}function ko(){const{api:t,viewer:n,can:r}=A(),o=Z(),a=ft("space"),[s,l]=p(a??n.space?.id??Ve()),i=ne(o.data),d=o.data===null||i.some(([k])=>k===s)?s:i[0]?.[0]??"",c=se(d),[h,m]=p(null);D(()=>{d&&yo(d)},[d]);const u=k=>{l(k),m(null);const T=new URLSearchParams(window.location.search);T.set("space",k),window.history.replaceState(null,"",`${window.location.pathname}?${T.toString()}`)},f=H(async()=>{if(!d)return null;const k=await t.request(lr,{spaceId:d,first:Qe,after:c.after});return{spaceId:d,connection:k.pendingApprovals}},[d,c.after]),_=wo(d,f.reload);So(f.reload,_?go:Kt);const y=Io(1e3),b=f.data&&f.data.spaceId===d?f.data.connection:null,w=b?.edges.filter(({node:k})=>!k.approval||Date.parse(k.approval.expiresAt)>y),g=b&&w&&{...b,edges:w,totalCount:b.totalCount-(b.edges.length-w.length)};D(()=>{f.data&&vo({spaceId:f.data.spaceId,count:f.data.connection.totalCount})},[f.data]);const v=r.manage(d);return e(S,{children:[e(L,{title:"Approvals"}),e("form",{class:"filters","aria-label":"Filter approvals",onSubmit:k=>k.preventDefault(),children:e(q,{label:"Space",name:"space",value:d,onChange:u,options:i})}),e("p",{class:"hint",children:["Tool calls of agent runs that wait for a person, oldest first; the list follows new requests and decisions by itself."," ",v?"Approved, a call runs and its run continues; rejected, it does not run and the model is told why.":"Read only: a SPACE_ADMIN of this space or an ADMIN decides."]}),e(z,{error:o.error,retry:o.reload}),e(z,{error:f.error,retry:f.reload}),h&&e(ve,{children:h}),e("p",{class:"muted",children:_?"Live: requests and decisions appear as they happen.":`Not live: checking every ${Kt/1e3} s while this page is visible.`}),g&&e(S,{children:[e("p",{class:"muted","aria-live":"polite",children:g.totalCount===0?"Nothing waits for a decision in this space.":`${g.totalCount.toLocaleString()} call${g.totalCount===1?"":"s"} waiting.`}),g.edges.map(({node:k})=>e(Co,{call:k,now:y,mayDecide:v,onDecided:T=>{m(T),f.reload()}},k.id)),g.totalCount>Qe&&e(ae,{label:"Approvals",pages:c,pageSize:Qe,connection:g})]})]})}function Co({call:t,now:n,mayDecide:r,onDecided:o}){const{api:a}=A(),[s,l]=p(""),i=V(),d=t.tool?.name??t.toolId,c=t.approval?Date.parse(t.approval.requestedAt):Number.NaN,h=t.approval?Date.parse(t.approval.expiresAt):Number.NaN,m=i.errors.map(f=>je([f],"reason").length?{...f,field:[...(f.field??[]).slice(0,-1),"comment"]}:f),u=async f=>{const _=s.trim()?s:null,y=f?await i.run(async()=>(await a.request(cr,{input:{toolCallId:t.id,comment:_}})).approveToolCall):await i.run(async()=>(await a.request(dr,{input:{toolCallId:t.id,reason:_}})).rejectToolCall);if(y){const b=y.run?` Run ${y.run.id} is ${y.run.status}.`:"";o(`${f?"Approved":"Rejected"} ${d} (${t.id}).${b}`)}};return e("section",{class:"card approval","aria-label":`Approval ${t.id}`,children:[e("h2",{children:[e("code",{children:d})," ",t.agent&&e("span",{class:"muted",children:["for agent ",t.agent.name]})]}),e("dl",{class:"facts",children:[e("dt",{children:"Tool"}),e("dd",{children:[e(E,{to:`/tools/${encodeURIComponent(t.toolId)}`,children:t.tool?.label??t.toolId})," ",e("code",{class:"muted",children:t.toolId})]}),e("dt",{children:"Agent"}),e("dd",{children:t.agent?e(E,{to:`/agents/${encodeURIComponent(t.agent.id)}`,children:t.agent.name}):"—"}),e("dt",{children:"Run"}),e("dd",{children:t.run&&t.agent?e(S,{children:[e(E,{to:`/agents/${encodeURIComponent(t.agent.id)}?run=${encodeURIComponent(t.run.id)}`,"aria-label":`Run ${t.run.id}`,children:e("code",{children:t.run.id})})," ",e(R,{tone:G(t.run.status),children:t.run.status})]}):t.run?.id??"—"}),e("dt",{children:"Call"}),e("dd",{children:e("code",{children:t.id})}),e("dt",{children:"Requested"}),e("dd",{children:[F(t.approval?.requestedAt),Number.isFinite(c)&&e(S,{children:[" · waiting ",Vt(n-c)]})]}),e("dt",{children:"Expires"}),e("dd",{children:[F(t.approval?.expiresAt),Number.isFinite(h)&&(h>n?e(S,{children:[" · in ",Vt(h-n)]}):e(S,{children:" · expired"}))]})]}),e("h3",{children:"Proposed arguments"}),e(fe,{label:`Proposed arguments of ${t.id}`,value:t.arguments}),r&&e("form",{class:"decision","aria-label":`Decide on ${t.id}`,onSubmit:f=>f.preventDefault(),children:[e(Y,{label:"Comment",name:"comment",value:s,onInput:l,errors:m,rows:2,hint:`Optional: kept on the call, and told to the model when rejected. ${s.length.toLocaleString()} of ${_o.toLocaleString()} characters.`}),e(Q,{errors:m,fields:["comment"]}),e("div",{class:"buttons",children:[e("button",{type:"button",class:"primary",disabled:i.busy,onClick:()=>{u(!0)},children:"Approve"}),e("button",{type:"button",class:"danger",disabled:i.busy,onClick:()=>{u(!1)},children:"Reject"})]})]})]})}function Ao(){const{api:t,viewer:n,can:r}=A(),[o,a]=p(Ve),s=n.space?.id??o,l=s!==""&&r.manage(s),i=_n(),[d,c]=p(null);if(D(()=>{const m=()=>a(Ve());return window.addEventListener(st,m),()=>window.removeEventListener(st,m)},[]),D(()=>{if(!l||!i)return;let m=!0;const u=()=>t.request(ir,{spaceId:s}).then(y=>m&&c({spaceId:s,count:y.pendingApprovals.totalCount}),()=>{});u();const f=window.setInterval(()=>{u()},bo),_=y=>{const b=y.detail;b.spaceId===s&&c(b)};return window.addEventListener(at,_),()=>{m=!1,window.clearInterval(f),window.removeEventListener(at,_)}},[t,s,l,i]),!l||d===null||d.spaceId!==s||d.count===0)return null;const h=`${d.count} pending approval${d.count===1?"":"s"}`;return e("span",{class:"badge busy nav-count",title:h,children:[e("span",{"aria-hidden":"true",children:d.count}),e("span",{class:"sr-only",children:h})]})}const Ft=50,lt=[".md",".markdown",".txt",".html",".htm"];function $o({sub:t}){return t==="new"?e(Eo,{}):t?e(Ro,{id:decodeURIComponent(t)}):e(To,{})}function To(){const{api:t,can:n}=A(),r=se("kbs"),o=H(()=>t.request(dn,{first:Ft,after:r.after}),[r.after]),a=o.data?.knowledgeBases;return e(S,{children:[e(L,{title:"Knowledge",children:n.manageSome&&e(E,{class:"button primary",to:"/knowledge/new",children:"Create knowledge base"})}),e(z,{error:o.error,retry:o.reload}),a&&e(S,{children:[e("table",{children:[e("caption",{children:"Knowledge bases"}),e("thead",{children:e("tr",{children:[e("th",{scope:"col",children:"Label"}),e("th",{scope:"col",children:"Name"}),e("th",{scope:"col",children:"Space"}),e("th",{scope:"col",children:"Documents"}),e("th",{scope:"col",children:"Created"})]})}),e("tbody",{children:a.edges.map(({node:s})=>e("tr",{children:[e("td",{children:e(E,{to:`/knowledge/${encodeURIComponent(s.id)}`,children:s.label})}),e("td",{children:e("code",{children:s.name})}),e("td",{children:s.space.name}),e("td",{children:s.documentCount}),e("td",{children:F(s.createdAt)})]},s.id))})]}),a.edges.length===0&&e("p",{class:"empty",children:"No knowledge base yet."}),e(ae,{label:"Knowledge bases",pages:r,pageSize:Ft,connection:a}),e(yn,{bases:a.edges.map(({node:s})=>({id:s.id,label:s.label,spaceId:s.space.id}))})]})]})}function Eo(){const{api:t,can:n,viewer:r}=A(),o=Z(),[a,s]=p(r.space?.id??""),[l,i]=p(""),[d,c]=p(""),[h,m]=p(""),u=V();return n.manageSome?e(S,{children:[e(L,{title:"Create knowledge base"}),e(de,{onSubmit:async _=>{_.preventDefault();const y=await u.run(async()=>(await t.request(mr,{input:{spaceId:a||o.data?.[0]?.id||"",name:l,label:d,description:h||null}})).createKnowledgeBase);y?.knowledgeBase&&oe(X(`/knowledge/${encodeURIComponent(y.knowledgeBase.id)}`))},mutation:u,fields:["spaceId","name","label","description"],submitLabel:"Create knowledge base",cancel:"/knowledge",children:[n.admin&&e(q,{label:"Space",name:"spaceId",value:a,onChange:s,errors:u.errors,options:ne(o.data)}),e(C,{label:"Name",name:"name",value:l,onInput:i,errors:u.errors,hint:"Unique in the space: ^[a-zA-Z0-9_-]{1,64}$."}),e(C,{label:"Label",name:"label",value:d,onInput:c,errors:u.errors}),e(Y,{label:"Description",name:"description",value:h,onInput:m,errors:u.errors,rows:2})]})]}):e("p",{children:"This key cannot create knowledge bases."})}function Ro({id:t}){const{api:n,can:r}=A(),o=H(()=>n.request(hr,{id:t}),[t]),a=H(()=>n.request(dn,{first:100,after:null}),[]),s=a.data?.knowledgeBases.edges.map(({node:d})=>d).find(d=>d.id===t),l=o.data?.node,i=l&&"documents"in l?l.documents:null;return e(S,{children:[e(L,{title:s?`Knowledge base ${s.label}`:"Knowledge base",children:e(E,{class:"button",to:"/knowledge",children:"All knowledge bases"})}),e(z,{error:o.error??a.error,retry:o.reload}),s&&e("dl",{class:"facts",children:[e("dt",{children:"Name"}),e("dd",{children:e("code",{children:s.name})}),e("dt",{children:"Space"}),e("dd",{children:s.space.name}),e("dt",{children:"Description"}),e("dd",{children:s.description??"—"})]}),s&&r.manage(s.space.id)&&e(Po,{knowledgeBaseId:t,onAdded:o.reload}),i&&e("table",{children:[e("caption",{children:["Documents (",i.totalCount,")"]}),e("thead",{children:e("tr",{children:[e("th",{scope:"col",children:"Title"}),e("th",{scope:"col",children:"Source"}),e("th",{scope:"col",children:"Chunks"}),e("th",{scope:"col",children:"Added"})]})}),e("tbody",{children:i.edges.map(({node:d})=>e("tr",{children:[e("td",{children:d.title}),e("td",{children:d.source??"—"}),e("td",{children:d.chunkCount}),e("td",{children:F(d.createdAt)})]},d.id))})]}),s&&e(yn,{bases:[{id:s.id,label:s.label,spaceId:s.space.id}]})]})}async function Do(t){const n=t.name.toLowerCase();if(!lt.some(s=>n.endsWith(s)))throw new Error(`${t.name}: only ${lt.join(" ")} files are read here (PDF: quiver kb ingest).`);const r=await t.text(),o=t.name.replace(/\.[^.]+$/,"");if(n.endsWith(".html")||n.endsWith(".htm")){const s=new DOMParser().parseFromString(r,"text/html"),l=[];return s.body.querySelectorAll("h1,h2,h3,h4,h5,h6,p,li,pre,td").forEach(i=>{const d=i.textContent?.trim();if(!d)return;const c=/^H([1-6])$/.exec(i.tagName)?.[1];l.push(c?`${"#".repeat(Number(c))} ${d}`:d)}),{title:s.title.trim()||o,text:l.join(`

`)}}return{title:/^ {0,3}#[ \t]+(.+?)[ \t]*#*[ \t]*$/m.exec(r)?.[1]?.trim()||o,text:r}}function Po({knowledgeBaseId:t,onAdded:n}){const{api:r}=A(),[o,a]=p([]),[s,l]=p(!1),i=async d=>{if(!d?.length)return;l(!0);const c=[];for(const h of Array.from(d))try{const{title:m,text:u}=await Do(h),f=(await r.request(fr,{input:{knowledgeBaseId:t,title:m,text:u,source:h.name}})).addDocument;c.push(f.userErrors.length?`${h.name}: ${f.userErrors.map(_=>_.message).join(" ")}`:`${h.name}: ${f.outcome?.toLowerCase()}, ${f.document?.chunkCount} chunks`)}catch(m){c.push(ee(m))}a(c),l(!1),n()};return e("section",{"aria-labelledby":"upload-title",class:"card",children:[e("h2",{id:"upload-title",children:"Upload files"}),e("div",{class:"field",children:[e("label",{for:"upload-files",children:"Files (.md, .txt, .html)"}),e("input",{id:"upload-files",type:"file",multiple:!0,accept:lt.join(","),disabled:s,onChange:d=>i(d.currentTarget.files)}),e("p",{class:"hint",children:"The same file name again replaces that document."})]}),o.length>0&&e(ve,{children:e("ul",{class:"plain",children:o.map(d=>e("li",{children:d},d))})})]})}function yn({bases:t}){const{api:n,viewer:r}=A(),o=Z(),[a,s]=p(r.space?.id??t[0]?.spaceId??""),[l,i]=p(""),[d,c]=p("5"),[h,m]=p([]),[u,f]=p(null),[_,y]=p(null),b=t.filter(g=>g.spaceId===a);return e("section",{"aria-labelledby":"search-title",children:[e("h2",{id:"search-title",children:"Search playground"}),e("form",{class:"card form",onSubmit:async g=>{g.preventDefault(),y(null);try{const v=await n.request(gr,{spaceId:a,query:l,topK:Number(d)||5,knowledgeBaseIds:h.length?h.filter(k=>b.some(T=>T.id===k)):null});f(v.searchKnowledge)}catch(v){y(ee(v))}},role:"search","aria-label":"Search knowledge",children:[!r.space&&e(q,{label:"Space",name:"spaceId",value:a,onChange:s,options:ne(o.data)}),e(C,{label:"Query",name:"query",value:l,onInput:i}),e(C,{label:"Results",name:"topK",value:d,onInput:c,type:"number"}),b.length>1&&e(me,{legend:"Only these knowledge bases",name:"knowledgeBaseIds",options:b.map(g=>({value:g.id,label:g.label})),selected:h,onChange:m}),e("div",{class:"buttons",children:e("button",{type:"submit",children:"Search"})})]}),_&&e("p",{class:"form-errors",role:"alert",children:_}),u&&e("ol",{class:"hits","aria-label":"Search results",children:[u.length===0&&e("li",{children:"No passage matches."}),u.map(g=>e("li",{class:"card",children:[e("p",{class:"hit-meta",children:[e("span",{class:"score",children:["score ",g.score.toFixed(4)]})," · ",e("strong",{children:g.document.title}),g.headingPath.length>0&&e(S,{children:[" › ",g.headingPath.join(" › ")]})]}),e("blockquote",{children:g.text}),e("p",{class:"citation",children:["Cite: ",g.document.title,g.source?`, ${g.source}`:"",", passage ",g.chunkIndex+1]})]},`${g.document.id}-${g.chunkIndex}`))]})]})}const Ye=500;function No(){const{api:t}=A(),n=Z(),[r,o]=p(""),[a,s]=p(""),[l,i]=p(""),[d,c]=p([]),[h,m]=p([]),[u,f]=p(!1),[_,y]=p(null),b=_e(null),[w,g]=p("connecting"),[v,k]=p(null),T=_e(u);T.current=u;const U=a.trim();return D(()=>t.onSocketState(g),[t]),D(()=>{k(null);const $={spaceId:r||null,toolId:U||null,status:l||null};return t.subscribe(pr,{filter:$},{next:N=>{const j=N.toolCalls;T.current?m(le=>[j,...le].slice(0,Ye)):c(le=>[j,...le].slice(0,Ye))},error:N=>k(N.message)})},[t,r,U,l]),e(S,{children:[e(L,{title:"Live calls",children:[u?e("button",{type:"button",onClick:()=>{c($=>[...h,...$].slice(0,Ye)),m([]),f(!1)},children:["Resume (",h.length," waiting)"]}):e("button",{type:"button",onClick:()=>f(!0),children:"Pause"}),e("button",{type:"button",onClick:()=>c([]),children:"Clear"})]}),e("p",{class:"muted",role:"status",children:[w==="connected"?"Listening: every finished call appears here as it happens.":w==="connecting"?"Connecting…":w==="reconnecting"?"Reconnecting… the live connection dropped; calls finished meanwhile are not shown here.":"Disconnected.",u&&" Paused: new calls wait until you resume."]}),v&&e("p",{class:"form-errors",role:"alert",children:v}),e("form",{class:"filters","aria-label":"Filter live calls",onSubmit:$=>$.preventDefault(),children:[e(q,{label:"Space",name:"spaceId",value:r,onChange:o,options:[["","Every space"],...ne(n.data)]}),e(C,{label:"Tool id",name:"toolId",value:a,onInput:s,placeholder:"e.g. bt_calculator"}),e(q,{label:"Status",name:"status",value:l,onChange:i,options:[["","Any status"],["SUCCESS","Success"],["FAILED","Failed"]]})]}),e("table",{class:"live",children:[e("caption",{class:"sr-only",children:"Live tool calls, newest first"}),e("thead",{children:e("tr",{children:[e("th",{scope:"col",children:"Started"}),e("th",{scope:"col",children:"Tool"}),e("th",{scope:"col",children:"Space"}),e("th",{scope:"col",children:"Status"}),e("th",{scope:"col",children:"Latency"}),e("th",{scope:"col",children:"Caller"}),e("th",{scope:"col",children:"Call"})]})}),e("tbody",{children:d.map($=>e("tr",{class:_?.id===$.id?"selected":void 0,children:[e("td",{children:F($.startedAt)}),e("td",{children:e("code",{children:$.toolId})}),e("td",{children:$.space.name}),e("td",{children:[e(R,{tone:G($.status),children:$.status})," ",$.error?.code]}),e("td",{children:ge($.latencyMs)}),e("td",{children:$.agent?`agent ${$.agent.name}`:"direct"}),e("td",{children:e("button",{type:"button",onClick:P=>{b.current=P.currentTarget,y($)},"aria-label":`Open call ${$.id}`,children:"Open"})})]},$.id))})]}),d.length===0&&e("p",{class:"empty",children:"No call yet. Calls made anywhere — the API, agents, other consoles — show up here."}),_&&e(xo,{call:_,onClose:()=>{y(null),b.current?.isConnected&&b.current.focus()}})]})}function xo({call:t,onClose:n}){const r=_e(null);return D(()=>r.current?.focus(),[t.id]),e("section",{class:"card call-detail","aria-labelledby":"call-title",onKeyDown:o=>{o.key==="Escape"&&(o.preventDefault(),n())},children:[e("h2",{id:"call-title",tabIndex:-1,ref:r,children:["Call ",t.id]}),e("dl",{class:"facts",children:[e("dt",{children:"Tool"}),e("dd",{children:e(E,{to:`/tools/${encodeURIComponent(t.toolId)}`,children:t.toolId})}),e("dt",{children:"Status"}),e("dd",{children:e(R,{tone:G(t.status),children:t.status})}),e("dt",{children:"Space"}),e("dd",{children:t.space.name}),e("dt",{children:"Started"}),e("dd",{children:F(t.startedAt)}),e("dt",{children:"Latency"}),e("dd",{children:[ge(t.latencyMs),", ",t.attempts," attempt",t.attempts===1?"":"s"]}),e("dt",{children:"Trace id"}),e("dd",{children:e("code",{children:t.traceId})}),e("dt",{children:"Idempotency key"}),e("dd",{children:t.idempotencyKey??"—"}),e("dt",{children:"Caller"}),e("dd",{children:t.agent?e(S,{children:["agent ",e(E,{to:`/agents/${encodeURIComponent(t.agent.id)}`,children:t.agent.name}),t.run&&e(S,{children:[", run ",e("code",{children:t.run.id})]})]}):"a direct call"})]}),e("h3",{children:"Arguments"}),e(fe,{label:"Arguments",value:t.arguments}),t.error?e(S,{children:[e("h3",{children:"Error"}),e("p",{children:[e("code",{children:t.error.code})," ",t.error.message]}),t.error.detail&&e("pre",{class:"json",children:t.error.detail})]}):e(S,{children:[e("h3",{children:"Result"}),e(fe,{label:"Result",value:t.result})]}),e("button",{type:"button",onClick:n,children:"Close call"})]})}const Xe=20,Ht=100;function Lo(){const{api:t,can:n}=A(),r=se("mcp"),o=H(()=>t.request(br,{first:Xe,after:r.after}),[r.after]),[a,s]=p(!1),l=o.data?.mcpServers;return e(S,{children:[e(L,{title:"MCP servers",children:n.admin&&!a&&e("button",{type:"button",class:"primary",onClick:()=>s(!0),children:"Register MCP server"})}),a&&e(Uo,{onDone:i=>{s(!1),i&&o.reload()}}),e(z,{error:o.error,retry:o.reload}),l&&l.edges.length===0&&e("p",{class:"empty",children:"No MCP server is registered."}),l?.edges.map(({node:i})=>e(Mo,{server:i,onChanged:o.reload},i.id)),l&&l.totalCount>Xe&&e(ae,{label:"MCP servers",pages:r,pageSize:Xe,connection:l})]})}function Mo({server:t,onChanged:n}){const{api:r,can:o}=A(),a=V(),s=V(),[l,i]=p(null),d=se(`mcp-tools-${t.id}`),c=H(()=>r.request(_r,{id:t.id,after:d.after}),[t.id,d.after]),h=c.data?.node&&"tools"in c.data.node?c.data.node.tools:null,m=h?.edges.filter(({node:b})=>b.driftedAt)??[],u=()=>{c.reload(),n()},f=async()=>{i(null);const b=await a.run(async()=>(await r.request(vr,{id:t.id})).syncMcpServer);b?.syncReport&&i(b.syncReport),u()},_=async(b,w)=>{await s.run(async()=>(await r.request(ht,{input:{id:b,status:w}})).setStatus)&&u()},y=`server-${t.id}`;return e("section",{class:"card","aria-labelledby":y,children:[e("h2",{id:y,children:[t.name," ",e(R,{tone:G(t.status),children:t.status})," ",e(R,{children:t.transport}),m.length>0&&e(R,{tone:"bad",children:[m.length," drifted"]})]}),e("dl",{class:"facts",children:[e("dt",{children:"Id"}),e("dd",{children:e("code",{children:t.id})}),e("dt",{children:t.url?"URL":"Command"}),e("dd",{children:e("code",{children:t.url??t.command?.join(" ")})}),e("dt",{children:"Visible in"}),e("dd",{children:t.isGlobal?"every space (global)":t.boundSpaces.map(b=>b.name).join(", ")}),e("dt",{children:"Last sync"}),e("dd",{children:F(t.lastSyncedAt)}),t.lastError&&e(S,{children:[e("dt",{children:"Last error"}),e("dd",{class:"error-text",children:t.lastError})]})]}),o.admin&&e("div",{class:"buttons",children:[e("button",{type:"button",onClick:f,disabled:a.busy,children:a.busy?"Syncing…":`Sync ${t.name}`}),t.status==="ACTIVE"?e("button",{type:"button",onClick:()=>_(t.id,"DISABLED"),disabled:s.busy,children:"Disable server"}):e("button",{type:"button",onClick:()=>_(t.id,"ACTIVE"),disabled:s.busy,children:"Re-activate server"})]}),e(Q,{errors:[...a.errors,...s.errors],fields:[]}),l&&e(qo,{report:l}),e("h3",{children:["Tools",h?` (${h.totalCount})`:""]}),e(z,{error:c.error,retry:c.reload}),e("table",{class:"compact",children:[e("caption",{class:"sr-only",children:["Tools of ",t.name]}),e("thead",{children:e("tr",{children:[e("th",{scope:"col",children:"Tool"}),e("th",{scope:"col",children:"Status"}),e("th",{scope:"col",children:"Drift"}),o.admin&&e("th",{scope:"col",children:"Action"})]})}),e("tbody",{children:h?.edges.map(({node:b})=>e("tr",{children:[e("td",{children:e(E,{to:`/tools/${encodeURIComponent(b.id)}`,children:b.name})}),e("td",{children:e(R,{tone:G(b.status),children:b.status})}),e("td",{children:b.driftedAt?e(R,{tone:"bad",children:["drifted ",F(b.driftedAt)]}):"—"}),o.admin&&e("td",{children:b.status!=="ACTIVE"&&e("button",{type:"button",onClick:()=>_(b.id,"ACTIVE"),disabled:s.busy,"aria-label":`Re-activate ${b.name}`,children:"Re-activate"})})]},b.id))})]}),h&&h.totalCount>Ht&&e(ae,{label:`Tools of ${t.name}`,pages:d,pageSize:Ht,connection:h})]})}function qo({report:t}){const n=[["Added",t.added],["Changed",t.updated],["Disabled",t.disabled],["Drifted",t.drifted],["Re-activated",t.reactivated],["Vanished",t.vanished],["Skipped",t.skipped]];return e("div",{class:"result",role:"status","aria-label":"Sync result",children:[e("p",{children:["Synced: ",t.added.length," added, ",t.updated.length," changed, ",t.disabled.length," disabled,"," ",t.unchanged.length," unchanged (",t.pages," page",t.pages===1?"":"s",")."]}),e("dl",{class:"facts",children:n.filter(([,r])=>r.length).map(([r,o])=>e(S,{children:[e("dt",{children:r},`${r}-t`),e("dd",{children:o.join(", ")},`${r}-d`)]}))})]})}function Uo({onDone:t}){const{api:n}=A(),r=Z(),[o,a]=p(""),[s,l]=p("STREAMABLE_HTTP"),[i,d]=p(""),[c,h]=p(""),[m,u]=p("NONE"),[f,_]=p(""),[y,b]=p(""),[w,g]=p([]),v=V();return e(de,{label:"Register MCP server",onSubmit:async T=>{T.preventDefault(),await v.run(async()=>(await n.request(yr,{input:{name:o,transport:s,url:s==="STDIO"?null:i,command:s==="STDIO"?c.split(/\s+/).filter(Boolean):null,auth:m==="NONE"?null:{type:m,headerName:f||null,secret:y||null},spaceIds:w.length?w:null}})).registerMcpServer)&&t(!0)},mutation:v,fields:["name","transport","url","command","auth","auth.type","auth.headerName","auth.secret","spaceIds"],submitLabel:"Register server",cancel:()=>t(!1),children:[e(C,{label:"Name",name:"name",value:o,onInput:a,errors:v.errors,hint:"^[a-zA-Z0-9_-]{1,64}$; tools are named {serverId}__{tool}."}),e(q,{label:"Transport",name:"transport",value:s,onChange:l,errors:v.errors,options:[["STREAMABLE_HTTP","Streamable HTTP"],["SSE","HTTP + SSE (older)"],["STDIO","Local process (stdio)"]]}),s==="STDIO"?e(C,{label:"Command",name:"command",value:c,onInput:h,errors:v.errors,hint:"The program and its arguments, separated by spaces."}):e(C,{label:"URL",name:"url",value:i,onInput:d,errors:v.errors,type:"url"}),e(q,{label:"Authentication",name:"auth.type",value:m,onChange:u,errors:v.errors,options:[["NONE","None"],["BEARER","Bearer token"],["API_KEY","API key header"],["HEADER","Custom header"]]}),(m==="API_KEY"||m==="HEADER")&&e(C,{label:"Header name",name:"auth.headerName",value:f,onInput:_,errors:v.errors}),m!=="NONE"&&e(C,{label:"Secret",name:"auth.secret",value:y,onInput:b,errors:v.errors,type:"password",autoComplete:"new-password",hint:"Write-only: stored encrypted, never shown again."}),e(me,{legend:"Bind to spaces (none checked: global)",name:"spaceIds",options:(r.data??[]).map(T=>({value:T.id,label:`${T.label} (${T.name})`})),selected:w,onChange:g,errors:v.errors})]})}const Bo=4e6;function Oo(t,n){const r=t.split(`
`),o=n.split(`
`);if(r.length*o.length>Bo)return[...r.map(d=>({kind:"removed",text:d})),...o.map(d=>({kind:"added",text:d}))];const a=Array.from({length:r.length+1},()=>new Uint32Array(o.length+1));for(let d=r.length-1;d>=0;d-=1)for(let c=o.length-1;c>=0;c-=1)a[d][c]=r[d]===o[c]?a[d+1][c+1]+1:Math.max(a[d+1][c],a[d][c+1]);const s=[];let l=0,i=0;for(;l<r.length&&i<o.length;)r[l]===o[i]?(s.push({kind:"same",text:r[l]}),l+=1,i+=1):a[l+1][i]>=a[l][i+1]?(s.push({kind:"removed",text:r[l]}),l+=1):(s.push({kind:"added",text:o[i]}),i+=1);for(;l<r.length;l+=1)s.push({kind:"removed",text:r[l]});for(;i<o.length;i+=1)s.push({kind:"added",text:o[i]});return s}const jt=50;function Ko({sub:t}){return t==="new"?e(Fo,{}):t==="import"?e(Ho,{}):t?e(jo,{id:decodeURIComponent(t)}):e(Vo,{})}function Vo(){const{api:t,can:n}=A(),[r,o]=p(""),[a,s]=p(""),l=se(a),i=H(()=>t.request(Sr,{first:jt,after:l.after,filter:a?{search:a}:null}),[a,l.after]),d=i.data?.skills;return e(S,{children:[e(L,{title:"Skills",children:n.manageSome&&e(S,{children:[e(E,{class:"button primary",to:"/skills/new",children:"Create skill"}),e(E,{class:"button",to:"/skills/import",children:"Import SKILL.md"})]})}),e("form",{class:"filters",role:"search","aria-label":"Filter skills",onSubmit:c=>{c.preventDefault(),s(r.trim())},children:[e(C,{label:"Search",name:"search",value:r,onInput:o}),e("button",{type:"submit",children:"Filter"})]}),e(z,{error:i.error,retry:i.reload}),d&&e(S,{children:[e("table",{children:[e("caption",{class:"sr-only",children:"Skills"}),e("thead",{children:e("tr",{children:[e("th",{scope:"col",children:"Name"}),e("th",{scope:"col",children:"Label"}),e("th",{scope:"col",children:"Scope"}),e("th",{scope:"col",children:"Production"}),e("th",{scope:"col",children:"Candidate"}),e("th",{scope:"col",children:"Status"})]})}),e("tbody",{children:d.edges.map(({node:c})=>e("tr",{children:[e("td",{children:e(E,{to:`/skills/${encodeURIComponent(c.id)}`,children:c.name})}),e("td",{children:c.label}),e("td",{children:c.space?c.space.name:"global"}),e("td",{children:c.version}),e("td",{children:c.candidateVersion?`${c.candidateVersion} (${c.canaryPercent}% of sessions)`:"—"}),e("td",{children:e(R,{tone:G(c.status),children:c.status})})]},c.id))})]}),e(ae,{label:"Skills",pages:l,pageSize:jt,connection:d})]}),e(Qo,{})]})}function vn({value:t,onChange:n,allowGlobal:r,errors:o}){const a=Z(),s=[...r?[["","Global (every space)"]]:[],...ne(a.data)];return e(q,{label:"Space",name:"spaceId",value:t,onChange:n,options:s,errors:o})}function Fo(){const{api:t,can:n,viewer:r}=A(),[o,a]=p(r.space?.id??""),[s,l]=p(""),[i,d]=p(""),[c,h]=p(""),[m,u]=p(""),[f,_]=p(""),[y,b]=p(""),w=V();return n.manageSome?e(S,{children:[e(L,{title:"Create skill"}),e(de,{wide:!0,onSubmit:async v=>{v.preventDefault();const k=await w.run(async()=>(await t.request(kr,{input:{spaceId:o||null,name:s,label:i,description:c,prompt:m,triggerHints:f.split(",").map(T=>T.trim()).filter(Boolean),boundary:y||null}})).createSkill);k?.skill&&oe(X(`/skills/${encodeURIComponent(k.skill.id)}`))},mutation:w,fields:["spaceId","name","label","description","prompt","triggerHints","boundary"],submitLabel:"Create skill",cancel:"/skills",children:[n.admin&&e(vn,{value:o,onChange:a,allowGlobal:!0,errors:w.errors}),e(C,{label:"Name",name:"name",value:s,onInput:l,errors:w.errors,hint:"1-64 of a-z, 0-9 and single hyphens."}),e(C,{label:"Label",name:"label",value:i,onInput:d,errors:w.errors}),e(C,{label:"Description",name:"description",value:c,onInput:h,errors:w.errors}),e(Y,{label:"Prompt",name:"prompt",value:m,onInput:u,errors:w.errors,rows:10,mono:!0,hint:"Markdown methodology; becomes version 1.0.0 in PRODUCTION."}),e(C,{label:"Trigger hints",name:"triggerHints",value:f,onInput:_,errors:w.errors,hint:"Comma-separated phrases that signal the skill applies."}),e(C,{label:"Boundary",name:"boundary",value:y,onInput:b,errors:w.errors,hint:"What the skill must not be used for."})]})]}):e("p",{children:"This key cannot create skills."})}function Ho(){const{api:t,can:n,viewer:r}=A(),[o,a]=p(r.space?.id??""),[s,l]=p(""),[i,d]=p(!1),c=V();return n.manageSome?e(S,{children:[e(L,{title:"Import SKILL.md"}),e(de,{wide:!0,onSubmit:async m=>{m.preventDefault();const u=await c.run(async()=>(await t.request(Er,{input:{spaceId:o||null,text:s,replaceExisting:i}})).importSkill);u?.skill&&oe(X(`/skills/${encodeURIComponent(u.skill.id)}`))},mutation:c,fields:["spaceId","text"],submitLabel:"Import skill",cancel:"/skills",children:[n.admin&&e(vn,{value:o,onChange:a,allowGlobal:!0,errors:c.errors}),e("div",{class:"field",children:[e("label",{for:"skill-file",children:"SKILL.md file"}),e("input",{id:"skill-file",type:"file",accept:".md,text/markdown",onChange:async m=>l(await m.currentTarget.files?.[0]?.text()??s)})]}),e(Y,{label:"SKILL.md text",name:"text",value:s,onInput:l,errors:c.errors,rows:14,mono:!0,hint:"YAML front matter (name, description, metadata) then the Markdown prompt."}),e("label",{class:"check",children:[e("input",{type:"checkbox",checked:i,onChange:m=>d(m.currentTarget.checked)})," Update the skill of that name if it exists"]})]})]}):e("p",{children:"This key cannot import skills."})}function jo({id:t}){const{api:n,can:r}=A(),o=H(()=>n.request(wr,{id:t}),[t]),a=o.data?.skill;if(o.data&&!a)return e(S,{children:[e(L,{title:"Skill not found"}),e("p",{children:["No skill ",e("code",{children:t})," is visible to this key. ",e(E,{to:"/skills",children:"Back to Skills"})]})]});const s=a?r.manage(a.space?.id??null)&&(a.space!==null||r.admin):!1;return e(S,{children:[e(L,{title:a?`Skill ${a.name}`:"Skill",children:e(E,{class:"button",to:"/skills",children:"All skills"})}),e(z,{error:o.error,retry:o.reload}),a&&e(S,{children:[e("dl",{class:"facts",children:[e("dt",{children:"Label"}),e("dd",{children:a.label}),e("dt",{children:"Scope"}),e("dd",{children:a.space?`space ${a.space.name}`:"global"}),e("dt",{children:"Status"}),e("dd",{children:e(R,{tone:G(a.status),children:a.status})}),e("dt",{children:"Production"}),e("dd",{children:[a.version," (",a.charCount," characters)"]}),e("dt",{children:"Candidate"}),e("dd",{children:a.candidateVersion?`${a.candidateVersion}, served to ${a.canaryPercent}% of sessions`:"none"}),e("dt",{children:"Description"}),e("dd",{children:a.description}),e("dt",{children:"Trigger hints"}),e("dd",{children:a.triggerHints.join(", ")||"—"}),e("dt",{children:"Boundary"}),e("dd",{children:a.boundary??"—"})]}),s&&e(Wo,{skill:a,onChanged:o.reload}),e(zo,{skill:a}),e(Jo,{skill:a}),e(Zo,{skill:a}),s&&e(Go,{skill:a,onChanged:o.reload})]})]})}function Go({skill:t,onChanged:n}){const{api:r}=A(),o=V(),a=t.status==="ACTIVE"?"DISABLED":"ACTIVE";return e("div",{class:"buttons",children:[e("button",{type:"button",disabled:o.busy,onClick:async()=>{await o.run(async()=>(await r.request(ht,{input:{id:t.id,status:a}})).setStatus)&&n()},children:a==="ACTIVE"?"Enable skill":"Disable skill"}),e(Q,{errors:o.errors,fields:[]})]})}function Wo({skill:t,onChanged:n}){const{api:r}=A(),o=t.versions.find(P=>P.version===t.version),[a,s]=p(o?.prompt??""),[l,i]=p(""),[d,c]=p("10"),[h,m]=p(String(t.canaryPercent)),[u,f]=p(""),[_,y]=p(null),b=V(),w=V(),g=V(),v=V();D(()=>m(String(t.canaryPercent)),[t.canaryPercent]);const k=t.versions.filter(P=>P.version!==t.version&&P.channel!=="CANDIDATE"),T=async P=>{P.preventDefault();const N=await b.run(async()=>(await r.request(Cr,{input:{skillId:t.id,prompt:a,version:l||null,canaryPercent:d===""?null:Number(d)}})).publishSkillVersion);N?.skillVersion&&(y(`Version ${N.skillVersion.version} published as the candidate.`),i(""),n())},U=async()=>{const P=await w.run(async()=>(await r.request(Ar,{input:{skillId:t.id}})).promoteSkillCandidate);P?.skill&&(y(`Version ${P.skill.version} is now in production.`),n())},W=async P=>{P.preventDefault();const N=await g.run(async()=>(await r.request($r,{input:{skillId:t.id,version:u||null}})).rollbackSkill);N?.skill&&(y(`Production rolled back to ${N.skill.version}.`),n())},$=async P=>{P.preventDefault();const N=await v.run(async()=>(await r.request(Tr,{input:{skillId:t.id,canaryPercent:Number(h)}})).setSkillCanary);N?.skill&&(y(`The candidate now serves ${N.skill.canaryPercent}% of sessions.`),n())};return e("section",{"aria-labelledby":"channels-title",children:[e("h2",{id:"channels-title",children:"Channels"}),_&&e(ve,{children:_}),e("div",{class:"columns",children:[e("form",{class:"card form",onSubmit:T,"aria-label":"Publish a candidate",children:[e("h3",{children:"Publish a candidate"}),e(Y,{label:"Candidate prompt",name:"prompt",value:a,onInput:s,errors:b.errors,rows:8,mono:!0}),e(C,{label:"Candidate version",name:"version",value:l,onInput:i,errors:b.errors,hint:"Default: the next patch version."}),e(C,{label:"Canary share (%)",name:"canaryPercent",value:d,onInput:c,errors:b.errors,type:"number"}),e(Q,{errors:b.errors,fields:["prompt","version","canaryPercent"]}),e("button",{type:"submit",disabled:b.busy,children:"Publish candidate"})]}),e("div",{children:[t.candidateVersion&&e("div",{class:"card",children:[e("h3",{children:["Candidate ",t.candidateVersion]}),e("button",{type:"button",class:"primary",onClick:U,disabled:w.busy,children:["Promote ",t.candidateVersion," to production"]}),e(Q,{errors:w.errors,fields:[]}),e("form",{class:"form",onSubmit:$,"aria-label":"Canary share",children:[e(C,{label:"Share of sessions (%)",name:"canaryPercent",value:h,onInput:m,errors:v.errors,type:"number"}),e(Q,{errors:v.errors,fields:["canaryPercent"]}),e("button",{type:"submit",disabled:v.busy,children:"Set canary share"})]})]}),k.length>0&&e("form",{class:"card form",onSubmit:W,"aria-label":"Roll back",children:[e("h3",{children:"Roll back production"}),e(q,{label:"Version to serve",name:"version",value:u,onChange:f,errors:g.errors,options:[["","The previous production version"],...k.map(P=>[P.version,`${P.version} (${P.channel})`])]}),e(Q,{errors:g.errors,fields:["version"]}),e("button",{type:"submit",disabled:g.busy,children:"Roll back"})]})]})]})]})}function zo({skill:t}){const n=t.versions,r=n[n.length-1]?.version??"",o=n.length>1?n[n.length-2].version:r,[a,s]=p(o),[l,i]=p(r);D(()=>{s(o),i(r)},[o,r]);const d=n.find(m=>m.version===a)?.prompt??"",c=n.find(m=>m.version===l)?.prompt??"",h=n.map(m=>[m.version,`${m.version} (${m.channel})`]);return e("section",{"aria-labelledby":"versions-title",children:[e("h2",{id:"versions-title",children:"Versions"}),e("table",{class:"compact",children:[e("caption",{class:"sr-only",children:"Versions"}),e("thead",{children:e("tr",{children:[e("th",{scope:"col",children:"Version"}),e("th",{scope:"col",children:"Channel"}),e("th",{scope:"col",children:"Created"}),e("th",{scope:"col",children:"Characters"})]})}),e("tbody",{children:n.map(m=>e("tr",{children:[e("td",{children:m.version}),e("td",{children:e(R,{tone:G(m.channel),children:m.channel})}),e("td",{children:F(m.createdAt)}),e("td",{children:m.prompt.length})]},m.version))})]}),n.length>1&&e(S,{children:[e("h3",{children:"Diff"}),e("div",{class:"filters",children:[e(q,{label:"From version",name:"from",value:a,onChange:s,options:h}),e(q,{label:"To version",name:"to",value:l,onChange:i,options:h})]}),e("pre",{class:"diff","aria-label":`Diff from ${a} to ${l}`,tabIndex:0,children:Oo(d,c).map((m,u)=>e("div",{class:m.kind,children:[e("span",{"aria-hidden":"true",children:m.kind==="added"?"+ ":m.kind==="removed"?"- ":"  "}),e("span",{class:"sr-only",children:m.kind==="added"?"added: ":m.kind==="removed"?"removed: ":""}),m.text]},u))})]})]})}function Jo({skill:t}){return e("section",{"aria-labelledby":"history-title",children:[e("h2",{id:"history-title",children:"Channel history"}),e("table",{class:"compact",children:[e("caption",{class:"sr-only",children:"Channel history"}),e("thead",{children:e("tr",{children:[e("th",{scope:"col",children:"When"}),e("th",{scope:"col",children:"Action"}),e("th",{scope:"col",children:"Channel"}),e("th",{scope:"col",children:"From"}),e("th",{scope:"col",children:"To"}),e("th",{scope:"col",children:"Canary"}),e("th",{scope:"col",children:"By key"})]})}),e("tbody",{children:t.channelHistory.map((n,r)=>e("tr",{children:[e("td",{children:F(n.at)}),e("td",{children:n.action}),e("td",{children:n.channel}),e("td",{children:n.fromVersion??"—"}),e("td",{children:n.toVersion??"—"}),e("td",{children:n.canaryPercent===null?"—":`${n.canaryPercent}%`}),e("td",{children:e("code",{children:n.actor??"—"})})]},r))})]})]})}function Zo({skill:t}){const{api:n}=A(),[r,o]=p(t.version),[a,s]=p(null),[l,i]=p(null),d=async()=>{try{const h=await n.request(Ir,{id:t.id,version:r});s(h.skill?.skillMd??null)}catch(h){i(ee(h))}},c=a?URL.createObjectURL(new Blob([a],{type:"text/markdown"})):null;return D(()=>()=>c?URL.revokeObjectURL(c):void 0,[c]),e("section",{"aria-labelledby":"export-title",children:[e("h2",{id:"export-title",children:"SKILL.md"}),e("div",{class:"filters",children:[e(q,{label:"Export version",name:"exportVersion",value:r,onChange:o,options:t.versions.map(h=>[h.version,h.version])}),e("button",{type:"button",onClick:d,children:"Export SKILL.md"})]}),l&&e("p",{role:"alert",children:l}),a&&c&&e(S,{children:[e("a",{href:c,download:`${t.name}-SKILL.md`,children:["Download ",t.name,"/SKILL.md"]}),e("pre",{class:"json","aria-label":"SKILL.md",tabIndex:0,children:a})]})]})}function Qo(){const{api:t,viewer:n}=A(),r=Z(),[o,a]=p(n.space?.id??""),[s,l]=p(""),[i,d]=p(null),[c,h]=p(null),m=ne(r.data);return e("section",{"aria-labelledby":"match-title",children:[e("h2",{id:"match-title",children:"Match playground"}),e("form",{class:"card form",onSubmit:async f=>{f.preventDefault(),h(null);try{d((await t.request(Rr,{spaceId:o||m[0]?.[0]||"",query:s,topK:10})).matchSkills)}catch(_){h(ee(_))}},role:"search","aria-label":"Match skills",children:[!n.space&&e(q,{label:"Space",name:"spaceId",value:o,onChange:a,options:m}),e(Te,{label:"Request",name:"query",children:f=>e("input",{...f,value:s,onInput:_=>l(_.currentTarget.value)})}),e("button",{type:"submit",children:"Match"})]}),c&&e("p",{role:"alert",children:c}),i&&e("table",{children:[e("caption",{children:"Matches, best first"}),e("thead",{children:e("tr",{children:[e("th",{scope:"col",children:"Skill"}),e("th",{scope:"col",children:"Score"}),e("th",{scope:"col",children:"Lexical"}),e("th",{scope:"col",children:"Semantic"}),e("th",{scope:"col",children:"Boundary"}),e("th",{scope:"col",children:"Why"})]})}),e("tbody",{children:[i.length===0&&e("tr",{children:e("td",{colSpan:6,children:"No skill matches this request."})}),i.map(f=>e("tr",{children:[e("td",{children:e(E,{to:`/skills/${encodeURIComponent(f.skill.id)}`,children:f.skill.name})}),e("td",{children:f.score.toFixed(3)}),e("td",{children:f.lexicalScore.toFixed(3)}),e("td",{children:f.semanticScore===null?"—":f.semanticScore.toFixed(3)}),e("td",{children:f.boundaryFactor<1?`× ${f.boundaryFactor.toFixed(2)} (touches its boundary)`:"—"}),e("td",{children:f.reason??"—"})]},f.skill.id))]})]})]})}const Gt=50;function Yo({sub:t}){return t==="new"?e(es,{}):t?e(ts,{id:decodeURIComponent(t)}):e(Xo,{})}function Xo(){const{api:t,can:n}=A(),r=se("spaces"),o=H(()=>t.request(Dr,{first:Gt,after:r.after}),[r.after]),a=o.data?.spaces;return e(S,{children:[e(L,{title:"Spaces",children:n.admin&&e(E,{class:"button primary",to:"/spaces/new",children:"Create space"})}),e(z,{error:o.error,retry:o.reload}),a&&e(S,{children:[e("table",{children:[e("caption",{class:"sr-only",children:"Spaces"}),e("thead",{children:e("tr",{children:[e("th",{scope:"col",children:"Label"}),e("th",{scope:"col",children:"Name"}),e("th",{scope:"col",children:"Id"}),e("th",{scope:"col",children:"Created"})]})}),e("tbody",{children:a.edges.map(({node:s})=>e("tr",{children:[e("td",{children:[e(E,{to:`/spaces/${encodeURIComponent(s.id)}`,children:s.label})," ",s.isSystem&&e(R,{children:"system"})]}),e("td",{children:e("code",{children:s.name})}),e("td",{children:e("code",{children:s.id})}),e("td",{children:F(s.createdAt)})]},s.id))})]}),e(ae,{label:"Spaces",pages:r,pageSize:Gt,connection:a})]})]})}function es(){const{api:t,can:n}=A(),[r,o]=p(""),[a,s]=p(""),l=V();return n.admin?e(S,{children:[e(L,{title:"Create space"}),e(de,{onSubmit:async d=>{d.preventDefault();const c=await l.run(async()=>(await t.request(Nr,{input:{name:r,label:a}})).createSpace);c?.space&&oe(X(`/spaces/${encodeURIComponent(c.space.id)}?created=1`))},mutation:l,fields:["name","label"],submitLabel:"Create space",cancel:"/spaces",children:[e(C,{label:"Name",name:"name",value:r,onInput:o,errors:l.errors,hint:"Unique machine name: 1-64 of a-z, 0-9, '_' and '-'.",required:!0}),e(C,{label:"Label",name:"label",value:a,onInput:s,errors:l.errors,hint:"Display name for people.",required:!0})]})]}):e("p",{children:"Only ADMIN keys create spaces."})}function ts({id:t}){const{api:n}=A(),r=H(()=>n.request(Pr,{id:t}),[t]),o=r.data?.space,a=new URLSearchParams(window.location.search).has("created");return r.data&&!o?e(S,{children:[e(L,{title:"Space not found"}),e("p",{children:["No space ",e("code",{children:t})," is visible to this key. ",e(E,{to:"/spaces",children:"Back to Spaces"})]})]}):e(S,{children:[e(L,{title:o?`Space ${o.label}`:"Space",children:e(E,{class:"button",to:"/spaces",children:"All spaces"})}),e(z,{error:r.error,retry:r.reload}),a&&o&&e(ve,{children:["Space ",o.name," created."]}),o&&e(S,{children:[e("dl",{class:"facts",children:[e("dt",{children:"Name"}),e("dd",{children:e("code",{children:o.name})}),e("dt",{children:"Id"}),e("dd",{children:e("code",{children:o.id})}),e("dt",{children:"Created"}),e("dd",{children:F(o.createdAt)})]}),e("h2",{children:"What this space can see"}),e("div",{class:"columns",children:[e("section",{"aria-labelledby":"visible-tools",children:[e("h3",{id:"visible-tools",children:["Tools (",o.visibleTools.totalCount,")"]}),e("ul",{class:"plain",children:o.visibleTools.edges.map(({node:s})=>e("li",{children:[e(E,{to:`/tools/${encodeURIComponent(s.id)}`,children:s.name})," ",e(R,{children:s.type})," ",e(R,{tone:s.isGlobal?"plain":"busy",children:s.isGlobal?"global":"bound"})]},s.id))}),o.visibleTools.totalCount>o.visibleTools.edges.length&&e(E,{to:`/tools?space=${encodeURIComponent(o.id)}`,children:["All ",o.visibleTools.totalCount," tools"]})]}),e("section",{"aria-labelledby":"visible-skills",children:[e("h3",{id:"visible-skills",children:["Skills (",o.skills.totalCount,")"]}),e("ul",{class:"plain",children:o.skills.edges.map(({node:s})=>e("li",{children:[e(E,{to:`/skills/${encodeURIComponent(s.id)}`,children:s.name})," ",e("span",{class:"muted",children:s.version})," ",!s.space&&e(R,{children:"global"})]},s.id))})]}),e("section",{"aria-labelledby":"visible-kbs",children:[e("h3",{id:"visible-kbs",children:["Knowledge bases (",o.knowledgeBases.totalCount,")"]}),e("ul",{class:"plain",children:o.knowledgeBases.edges.map(({node:s})=>e("li",{children:[e(E,{to:`/knowledge/${encodeURIComponent(s.id)}`,children:s.label})," ",e("span",{class:"muted",children:[s.documentCount," documents"]})]},s.id))})]}),e("section",{"aria-labelledby":"visible-agents",children:[e("h3",{id:"visible-agents",children:["Agents (",o.agents.totalCount,")"]}),e("ul",{class:"plain",children:o.agents.edges.map(({node:s})=>e("li",{children:[e(E,{to:`/agents/${encodeURIComponent(s.id)}`,children:s.name})," ",e("span",{class:"muted",children:s.model})]},s.id))})]})]})]})]})}const ns=[{path:"/spaces",name:"Spaces"},{path:"/tools",name:"Tools"},{path:"/mcp-servers",name:"MCP servers"},{path:"/knowledge",name:"Knowledge"},{path:"/skills",name:"Skills"},{path:"/agents",name:"Agents"},{path:"/approvals",name:"Approvals"},{path:"/live-calls",name:"Live calls"},{path:"/api-keys",name:"API keys"}];function rs(){const[t,n]=p(()=>kt()?{kind:"checking"}:{kind:"signedOut",reason:xn()}),r=Be(a=>{Dn(a??null),n({kind:"signedOut",reason:a??null})},[]),o=Be(async a=>{const s=new Wt(a,i=>r(Sn(i))),{viewer:l}=await s.request(pn,{});s.close(),Pn(a),n({kind:"signedIn",key:a,viewer:l})},[r]);return D(()=>{if(t.kind!=="checking")return;const a=kt();if(!a){n({kind:"signedOut",reason:null});return}o(a).catch(s=>{s instanceof it||n({kind:"signedOut",reason:ee(s)})})},[t.kind,o]),D(()=>{const a=s=>{s.key===Nn&&s.newValue===null&&r("You signed out in another window.")};return window.addEventListener("storage",a),()=>window.removeEventListener("storage",a)},[r]),t.kind==="checking"?e("main",{class:"signin","aria-busy":"true",children:e("p",{children:"Checking the saved API key…"})}):t.kind==="signedOut"?e(os,{reason:t.reason,onSignIn:o}):e(ss,{apiKey:t.key,viewer:t.viewer,signOut:r},t.key)}function Sn(t){return`You were signed out because Quiver no longer accepts this API key (${t.replace(/\.$/,"")}). It may have been revoked; sign in with another key.`}function os({reason:t,onSignIn:n}){const[r,o]=p(""),[a,s]=p(null),[l,i]=p(!1);return e("main",{class:"signin",id:"main",children:e("form",{class:"card",onSubmit:async c=>{c.preventDefault();const h=r.trim();if(!h){s("Enter an API key.");return}i(!0),s(null);try{const m=await Rn(h);if(!m.ok){s(`This key was refused: ${m.reason}`);return}await n(h)}catch(m){s(ee(m))}finally{i(!1)}},"aria-labelledby":"signin-title",children:[e("h1",{id:"signin-title",children:"Quiver console"}),e("p",{class:"hint",children:["Sign in with an API key. ",e("code",{children:"quiver serve"})," prints an ADMIN key on its first run;"," ",e("code",{children:"quiver apikey create"})," makes more."]}),t&&e("p",{class:"signed-out",role:"alert",children:t}),e("div",{class:`field${a?" invalid":""}`,children:[e("label",{for:"api-key",children:"API key"}),e("input",{id:"api-key",name:"apiKey",type:"password",autoComplete:"current-password",value:r,"aria-invalid":a!==null,"aria-describedby":a?"api-key-error":void 0,onInput:c=>o(c.currentTarget.value),autoFocus:!0}),a&&e("p",{class:"field-error",id:"api-key-error",role:"alert",children:a})]}),e("button",{type:"submit",class:"primary",disabled:l,children:"Sign in"}),e("p",{class:"hint",children:[e("a",{href:"/graphql",children:"GraphiQL"})," uses the same key."]})]})})}function ss({apiKey:t,viewer:n,signOut:r}){const[o,a]=p(n),s=ye(()=>new Wt(t,d=>r(Sn(d))),[t,r]);D(()=>()=>s.close(),[s]),D(()=>{const d=window.setInterval(()=>{s.request(pn,{}).then(c=>a(c.viewer),()=>{})},Vr);return()=>window.clearInterval(d)},[s]);const l=ye(()=>({api:s,viewer:o,can:Fr(o),signOut:r}),[s,o,r]),i=hn();return D(()=>{i===""&&oe(X("/spaces"),{replace:!0})},[i]),e(mn.Provider,{value:l,children:[e("a",{class:"skip",href:"#main",children:"Skip to content"}),e("header",{class:"topbar",children:[e("span",{class:"brand",children:"Quiver"}),e("p",{class:"who","aria-label":"Signed in as",children:[e("span",{class:"badge role",children:o.role})," ",o.space?e(S,{children:["space ",e("strong",{children:o.space.label})," ",e("span",{class:"muted",children:["(",o.space.name,")"]})]}):e(S,{children:"every space"})," ",e("span",{class:"muted",children:["· key ",o.keyLabel?`“${o.keyLabel}” `:"",e("code",{children:o.keyId})]})]}),e("a",{href:"/graphql",class:"graphiql-link",children:"GraphiQL"}),e("button",{type:"button",onClick:()=>r(),children:"Sign out"})]}),e("div",{class:"layout",children:[e("nav",{class:"sidebar","aria-label":"Pages",children:e("ul",{children:ns.map(d=>e("li",{children:[e(E,{to:d.path,"aria-current":i===d.path||i.startsWith(`${d.path}/`)?"page":void 0,children:d.name}),d.path==="/approvals"&&e(Ao,{})]},d.path))})}),e("main",{id:"main",class:"content",children:e(as,{path:i})})]})]})}function as({path:t}){const[,n,...r]=t.split("/"),o=r.join("/");switch(n){case"spaces":return e(Yo,{sub:o});case"tools":return e(jr,{sub:o});case"mcp-servers":return e(Lo,{});case"knowledge":return e($o,{sub:o});case"skills":return e(Ko,{sub:o});case"agents":return e(oo,{sub:o});case"approvals":return e(ko,{});case"live-calls":return e(No,{});case"api-keys":return e(ho,{});case void 0:return null;default:return e(S,{children:[e(L,{title:"Not found"}),e("p",{children:["No page at ",e("code",{children:X(t)}),". ",e(E,{to:"/spaces",children:"Go to Spaces"}),"."]})]})}}Vn(e(rs,{}),document.getElementById("app"));
